import Foundation

/// `POST /internal/v1/store-purchases` (entitlements): which purchases of one store a customer owns now, for the
/// verifier to find the customer's account at that store (their Stripe customer, for the billing portal).
package struct StorePurchasesRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    package var store: StorePlatform

    package init(appUserID: String, store: StorePlatform) {
        self.appUserID = appUserID
        self.store = store
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case store
    }
}

/// The answer: the original transaction ids the customer owns at the store, newest purchase first (at most
/// ``limit``); empty when the app user id names no customer or the customer bought nothing there. Ownership is
/// Shopkeeper's: a purchase moved by a redemption is its new owner's, whatever the store's metadata still says.
package struct StorePurchases: Codable, Sendable, Equatable {
    package var originalTransactionIDs: [String]

    /// How many ids an answer holds at most.
    package static let limit = 200

    package init(originalTransactionIDs: [String]) {
        self.originalTransactionIDs = originalTransactionIDs
    }

    package enum CodingKeys: String, CodingKey {
        case originalTransactionIDs = "original_transaction_ids"
    }
}
