import HTTPTypes
import ShopkeeperHTTP

/// Why no offer signature was made.
enum OfferSignatureError: ProblemError, Equatable {
    /// Offers are signed with the app's In-App Purchase key: the app's Apple settings need it.
    case apiKeyRequired
    /// The catalog does not sell the product on the App Store.
    case notOnAppStore(String)
    /// Offers are of auto-renewable subscriptions.
    case notASubscription(String)
    /// Promotional offers are for current and lapsed subscribers of the product's group.
    case notEligible(String)
    /// The introductory offer eligibility JWS names a transaction of the customer's; it has none yet.
    case appleTransactionRequired

    var status: HTTPResponse.Status { .unprocessableContent }

    var code: String {
        switch self {
        case .apiKeyRequired: "api_key_required"
        case .notOnAppStore: "not_on_app_store"
        case .notASubscription: "not_a_subscription"
        case .notEligible: "offer_not_eligible"
        case .appleTransactionRequired: "apple_transaction_required"
        }
    }

    var detail: String {
        switch self {
        case .apiKeyRequired:
            "Offers are signed with the app's In-App Purchase key: set the app's api_key under /v1/admin/stores/apple."
        case .notOnAppStore(let id): "The catalog does not sell \(id) on the App Store."
        case .notASubscription(let id): "\(id) is not an auto-renewable subscription; only those have offers."
        case .notEligible(let id):
            "Promotional offers of \(id) are for customers who subscribed to its group before; this one never did."
        case .appleTransactionRequired:
            "An introductory offer eligibility names a transaction of the customer's: send its app transaction "
                + "(signed_app_transaction to POST /v1/purchases) or a purchase first."
        }
    }
}
