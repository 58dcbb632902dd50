import Foundation

/// `POST /internal/v1/apply` on the subscriptions service (verifier to subscriptions): verified, recorded store
/// facts about subscriptions, for the app of the signed caller. Applying the same facts twice changes nothing.
package struct SubscriptionApplyRequest: Codable, Sendable, Equatable {
    package var source: ApplySource
    /// Transactions of any kind; the service keeps those whose catalog product is an auto-renewable subscription.
    package var transactions: [StoreTransaction]
    /// What the store says about renewals (Apple's renewal info and status, Play's subscription state).
    package var renewals: [SubscriptionRenewalFacts]

    package init(source: ApplySource, transactions: [StoreTransaction], renewals: [SubscriptionRenewalFacts] = []) {
        self.source = source
        self.transactions = transactions
        self.renewals = renewals
    }
}

/// What the store reports about one subscription's renewal at one moment. Facts observed before those already
/// applied are ignored, so notifications delivered out of order never move a subscription backwards.
package struct SubscriptionRenewalFacts: Codable, Sendable, Equatable {
    package var store: StorePlatform
    package var originalTransactionID: String
    /// When the store signed or reported these facts (Apple's `signedDate`, Play's event time).
    package var observedAt: Date
    /// Whether the subscription renews at the end of its period; `nil` when the store did not say.
    package var willRenew: Bool?
    /// The store product the next period renews into (after a downgrade or crossgrade).
    package var renewsIntoStoreProductID: String?
    /// Until then a subscription whose billing failed stays in service.
    package var gracePeriodExpiresDate: Date?
    /// The store is retrying to bill an ended period.
    package var isInBillingRetry: Bool?
    /// Play's paused subscriptions.
    package var isPaused: Bool?
    /// Why it ended or will end: `voluntary`, `billing_error`, `price_increase`, `product_unavailable`, `other`.
    package var expirationReason: String?
    /// The store's status says the current period is over (`true`: expired, billing retry, grace period) or
    /// running (`false`); `nil` when it did not say.
    package var periodEnded: Bool?

    package init(
        store: StorePlatform, originalTransactionID: String, observedAt: Date, willRenew: Bool? = nil,
        renewsIntoStoreProductID: String? = nil, gracePeriodExpiresDate: Date? = nil, isInBillingRetry: Bool? = nil,
        isPaused: Bool? = nil, expirationReason: String? = nil, periodEnded: Bool? = nil
    ) {
        self.store = store
        self.originalTransactionID = originalTransactionID
        self.observedAt = observedAt
        self.willRenew = willRenew
        self.renewsIntoStoreProductID = renewsIntoStoreProductID
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.isInBillingRetry = isInBillingRetry
        self.isPaused = isPaused
        self.expirationReason = expirationReason
        self.periodEnded = periodEnded
    }

    package enum CodingKeys: String, CodingKey {
        case store
        case periodEnded = "period_ended"
        case originalTransactionID = "original_transaction_id"
        case observedAt = "observed_at"
        case willRenew = "will_renew"
        case renewsIntoStoreProductID = "renews_into_store_product_id"
        case gracePeriodExpiresDate = "grace_period_expires_date"
        case isInBillingRetry = "is_in_billing_retry"
        case isPaused = "is_paused"
        case expirationReason = "expiration_reason"
    }
}

/// The answer of the subscriptions service's apply: each subscription the facts touched, as it is now.
package struct SubscriptionApplyResponse: Codable, Sendable, Equatable {
    package var subscriptions: [SubscriptionInfo]

    package init(subscriptions: [SubscriptionInfo]) {
        self.subscriptions = subscriptions
    }
}

/// Where a subscription stands.
package enum SubscriptionState: String, Codable, Sendable, CaseIterable {
    case trial
    case active
    case gracePeriod = "grace_period"
    case billingRetry = "billing_retry"
    case paused
    case expired
    case revoked
    case refunded

    /// Whether the customer has the subscription's entitlements in this state.
    package var grantsAccess: Bool {
        switch self {
        case .trial, .active, .gracePeriod: true
        case .billingRetry, .paused, .expired, .revoked, .refunded: false
        }
    }
}

/// The kind of period a subscription is in.
package enum SubscriptionPeriodType: String, Codable, Sendable, CaseIterable {
    /// A free trial (a store's free-trial offer or the app's own trial).
    case trial
    /// A paid introductory offer.
    case intro
    case normal
}

/// `POST /v1/customers/{app_user_id}/trial`.
package struct TrialStartRequest: Codable, Sendable, Equatable {
    package var deviceID: String
    /// The product whose trial to start; defaults to the app's product with a trial duration.
    package var productID: String?

    package init(deviceID: String, productID: String? = nil) {
        self.deviceID = deviceID
        self.productID = productID
    }

    package enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case productID = "product_id"
    }
}

/// A customer's free trial: the answer of `GET` and `POST /v1/customers/{app_user_id}/trial`.
package struct TrialInfo: Codable, Sendable, Equatable {
    package var state: TrialState
    package var productID: String?
    package var startedAt: Date?
    package var expiresAt: Date?

    package init(state: TrialState, productID: String? = nil, startedAt: Date? = nil, expiresAt: Date? = nil) {
        self.state = state
        self.productID = productID
        self.startedAt = startedAt
        self.expiresAt = expiresAt
    }

    package enum CodingKeys: String, CodingKey {
        case state
        case productID = "product_id"
        case startedAt = "started_at"
        case expiresAt = "expires_at"
    }
}

/// Where a customer's free trial (the app's own) stands.
package enum TrialState: String, Codable, Sendable, CaseIterable {
    /// Never started.
    case none
    case active
    case expired
}

/// Why an introductory offer or free trial may not be offered.
package enum EligibilityReason: String, Codable, Sendable, CaseIterable {
    /// The app's own trial of the product's group was used.
    case trialUsed = "trial_used"
    /// A store trial or introductory offer in the group was used.
    case introOfferUsed = "intro_offer_used"
    /// An earlier subscription in the group (without an offer).
    case alreadySubscribed = "already_subscribed"
    /// This device had the app's trial under another account.
    case deviceUsedTrial = "device_used_trial"
    /// The product is not a subscription and has no trial.
    case notASubscription = "not_a_subscription"
}

/// `GET /v1/customers/{app_user_id}/eligibility?product_id=`: whether an introductory offer or free trial may be
/// offered for the product, on any store.
package struct EligibilityInfo: Codable, Sendable, Equatable {
    package var productID: String
    package var eligible: Bool
    /// Why not; `nil` when eligible.
    package var reason: EligibilityReason?

    package init(productID: String, eligible: Bool, reason: EligibilityReason?) {
        self.productID = productID
        self.eligible = eligible
        self.reason = reason
    }

    package enum CodingKeys: String, CodingKey {
        case eligible, reason
        case productID = "product_id"
    }

    /// Writes `reason` as `null` when eligible, so the field is always there.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(eligible, forKey: .eligible)
        try container.encode(reason, forKey: .reason)
    }
}

/// Who a trial call is for: entitlements resolves the app user id and passes the customer and the customers merged
/// into it (entitlements to subscriptions, internal).
package struct TrialCustomer: Codable, Sendable, Equatable {
    /// `nil` for an app user id no customer has yet (eligibility of a new user).
    package var customerID: UUID?
    /// The customer and every customer merged into it: a trial any of them used counts.
    package var customerIDs: [UUID]
    /// The customer's subscription purchases, whose store trials and intro offers count for eligibility.
    package var purchases: [StorePurchaseKey]

    package init(customerID: UUID?, customerIDs: [UUID], purchases: [StorePurchaseKey]) {
        self.customerID = customerID
        self.customerIDs = customerIDs
        self.purchases = purchases
    }

    package enum CodingKeys: String, CodingKey {
        case purchases
        case customerID = "customer_id"
        case customerIDs = "customer_ids"
    }
}

/// A store purchase by its store identity.
package struct StorePurchaseKey: Codable, Sendable, Equatable, Hashable {
    package var store: StorePlatform
    package var originalTransactionID: String

    package init(store: StorePlatform, originalTransactionID: String) {
        self.store = store
        self.originalTransactionID = originalTransactionID
    }

    package enum CodingKeys: String, CodingKey {
        case store
        case originalTransactionID = "original_transaction_id"
    }
}

/// Internal: start (or read) a trial for a resolved customer.
package struct InternalTrialRequest: Codable, Sendable, Equatable {
    package var customer: TrialCustomer
    /// `nil` reads the trial without starting one.
    package var deviceID: String?
    package var productID: String?

    package init(customer: TrialCustomer, deviceID: String?, productID: String?) {
        self.customer = customer
        self.deviceID = deviceID
        self.productID = productID
    }

    package enum CodingKeys: String, CodingKey {
        case customer
        case deviceID = "device_id"
        case productID = "product_id"
    }
}

/// Internal: the answer of a trial start.
package struct InternalTrialResponse: Codable, Sendable, Equatable {
    package var trial: TrialInfo
    /// Whether this call started it.
    package var started: Bool

    package init(trial: TrialInfo, started: Bool) {
        self.trial = trial
        self.started = started
    }
}

/// Internal: eligibility of a resolved customer.
package struct InternalEligibilityRequest: Codable, Sendable, Equatable {
    package var customer: TrialCustomer
    package var productID: String
    package var deviceID: String?

    package init(customer: TrialCustomer, productID: String, deviceID: String?) {
        self.customer = customer
        self.productID = productID
        self.deviceID = deviceID
    }

    package enum CodingKeys: String, CodingKey {
        case customer
        case productID = "product_id"
        case deviceID = "device_id"
    }
}
