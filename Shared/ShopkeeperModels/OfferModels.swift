import Foundation

/// `POST /internal/v1/offer-eligibility` (subscriptions): what decides which App Store offers a customer may get.
package struct OfferEligibility: Codable, Sendable, Equatable {
    /// Whether an introductory offer or free trial of the product may be offered, on any store.
    package var introductory: EligibilityInfo
    /// Whether the customer had a subscription in the product's group, on any store: promotional offers are for
    /// current and lapsed subscribers.
    package var subscribedInGroup: Bool

    package init(introductory: EligibilityInfo, subscribedInGroup: Bool) {
        self.introductory = introductory
        self.subscribedInGroup = subscribedInGroup
    }

    package enum CodingKeys: String, CodingKey {
        case introductory
        case subscribedInGroup = "subscribed_in_group"
    }
}

/// `POST /internal/v1/offer-context` (entitlements): the customer and product an offer signature is asked for.
package struct OfferContextRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    package var productID: String
    package var deviceID: String?

    package init(appUserID: String, productID: String, deviceID: String?) {
        self.appUserID = appUserID
        self.productID = productID
        self.deviceID = deviceID
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case productID = "product_id"
        case deviceID = "device_id"
    }
}

/// What the verifier needs to sign an App Store offer for a customer: the App Store product, the customer's
/// eligibility, and a transaction of the customer's to name in the JWS forms.
package struct OfferContext: Codable, Sendable, Equatable {
    package var productID: String
    /// The product's App Store product id; `nil` when the catalog does not sell it on the App Store.
    package var appleProductID: String?
    package var eligibility: OfferEligibility
    /// The customer's app transaction id, or else its latest App Store transaction id; `nil` when it has neither.
    package var appleTransactionID: String?

    package init(
        productID: String, appleProductID: String?, eligibility: OfferEligibility, appleTransactionID: String?
    ) {
        self.productID = productID
        self.appleProductID = appleProductID
        self.eligibility = eligibility
        self.appleTransactionID = appleTransactionID
    }

    package enum CodingKeys: String, CodingKey {
        case eligibility
        case productID = "product_id"
        case appleProductID = "apple_product_id"
        case appleTransactionID = "apple_transaction_id"
    }
}
