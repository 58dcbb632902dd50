/// A subscription of the Android Publisher API v3 (`monetization.subscriptions`, Google's `Subscription`): the fields
/// the catalog sync reads. Its periods, states and prices live on its base plans.
package struct GoogleSubscriptionProduct: Codable, Hashable, Sendable {
    package var packageName: String?
    package var productId: String
    package var listings: [GoogleProductListing]?
    package var basePlans: [GoogleBasePlan]?

    package init(
        packageName: String?, productId: String, listings: [GoogleProductListing]?, basePlans: [GoogleBasePlan]?
    ) {
        self.packageName = packageName
        self.productId = productId
        self.listings = listings
        self.basePlans = basePlans
    }
}

/// Google's `BasePlan`: one billing period and renewal type of a subscription, with its regional prices.
package struct GoogleBasePlan: Codable, Hashable, Sendable {
    package var basePlanId: String
    /// `DRAFT`, `ACTIVE` or `INACTIVE` (kept as Google writes it).
    package var state: String?
    package var autoRenewingBasePlanType: GoogleRenewalType?
    package var prepaidBasePlanType: GoogleRenewalType?
    package var regionalConfigs: [GoogleRegionalBasePlanConfig]?

    package init(
        basePlanId: String, state: String?, autoRenewingBasePlanType: GoogleRenewalType?,
        prepaidBasePlanType: GoogleRenewalType?, regionalConfigs: [GoogleRegionalBasePlanConfig]?
    ) {
        self.basePlanId = basePlanId
        self.state = state
        self.autoRenewingBasePlanType = autoRenewingBasePlanType
        self.prepaidBasePlanType = prepaidBasePlanType
        self.regionalConfigs = regionalConfigs
    }
}

/// Google's `AutoRenewingBasePlanType` and `PrepaidBasePlanType`: the fields both share that the sync reads.
package struct GoogleRenewalType: Codable, Hashable, Sendable {
    /// ISO 8601 (`P1M`).
    package var billingPeriodDuration: String?
    /// Auto-renewing only: the base plan older Play Billing Library flows see.
    package var legacyCompatible: Bool?

    package init(billingPeriodDuration: String?, legacyCompatible: Bool? = nil) {
        self.billingPeriodDuration = billingPeriodDuration
        self.legacyCompatible = legacyCompatible
    }
}

/// Google's `RegionalBasePlanConfig`: a base plan's price in one region.
package struct GoogleRegionalBasePlanConfig: Codable, Hashable, Sendable {
    /// ISO 3166-1 alpha-2 (`US`).
    package var regionCode: String
    /// Whether new subscribers may buy it there.
    package var newSubscriberAvailability: Bool?
    package var price: GoogleMoney?

    package init(regionCode: String, newSubscriberAvailability: Bool?, price: GoogleMoney?) {
        self.regionCode = regionCode
        self.newSubscriberAvailability = newSubscriberAvailability
        self.price = price
    }
}

/// `GET .../subscriptions`: Google's `ListSubscriptionsResponse`.
package struct GoogleSubscriptionsPage: Codable, Hashable, Sendable {
    package var subscriptions: [GoogleSubscriptionProduct]?
    /// Absent on the last page.
    package var nextPageToken: String?

    package init(subscriptions: [GoogleSubscriptionProduct]?, nextPageToken: String?) {
        self.subscriptions = subscriptions
        self.nextPageToken = nextPageToken
    }
}

/// Google's `SubscriptionOffer`: a discount or trial on a base plan (the fields the sync reads).
package struct GoogleSubscriptionOffer: Codable, Hashable, Sendable {
    package var packageName: String?
    package var productId: String
    package var basePlanId: String
    package var offerId: String
    /// `DRAFT`, `ACTIVE` or `INACTIVE`.
    package var state: String?
    package var phases: [GoogleOfferPhase]?

    package init(
        packageName: String?, productId: String, basePlanId: String, offerId: String, state: String?,
        phases: [GoogleOfferPhase]?
    ) {
        self.packageName = packageName
        self.productId = productId
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.state = state
        self.phases = phases
    }
}

/// Google's `SubscriptionOfferPhase`: how long a phase lasts and how often it repeats (its regional prices are not
/// read).
package struct GoogleOfferPhase: Codable, Hashable, Sendable {
    package var recurrenceCount: Int?
    /// ISO 8601 (`P1W`).
    package var duration: String?

    package init(recurrenceCount: Int?, duration: String?) {
        self.recurrenceCount = recurrenceCount
        self.duration = duration
    }
}

/// `GET .../subscriptions/{productId}/basePlans/{basePlanId}/offers`: Google's `ListSubscriptionOffersResponse`.
package struct GoogleSubscriptionOffersPage: Codable, Hashable, Sendable {
    package var subscriptionOffers: [GoogleSubscriptionOffer]?
    /// Absent on the last page.
    package var nextPageToken: String?

    package init(subscriptionOffers: [GoogleSubscriptionOffer]?, nextPageToken: String?) {
        self.subscriptionOffers = subscriptionOffers
        self.nextPageToken = nextPageToken
    }
}
