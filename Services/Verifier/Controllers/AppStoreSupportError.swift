import HTTPTypes
import ShopkeeperCore
import ShopkeeperHTTP

/// Why a support request to the App Store Server API (refund history, notification recovery, renewal extension)
/// answered no result. Apple's own refusals keep Apple's `errorCode` in the detail.
enum AppStoreSupportError: ProblemError, Equatable {
    /// The route is the App Store's only (`/v1/admin/stores/apple/...`).
    case storeNotSupported(String)
    /// Asking the App Store Server API needs the app's key.
    case apiKeyRequired
    /// Apple knows no such transaction for this app, in any environment the app accepts.
    case transactionNotFound(String)
    /// No App Store subscription with this original transaction id is recorded for this app.
    case subscriptionNotFound(String)
    /// Apple refused to extend: the subscription's state does not allow it (`code`: Shopkeeper's name for Apple's
    /// reason), with Apple's `errorCode`.
    case extensionRefused(code: String, appleCode: Int64?)
    /// Another request with this `Idempotency-Key` is extending now.
    case extensionInProgress
    /// An earlier attempt with this key got no answer from Apple and the subscription's expiry has moved since: it may
    /// have been extended. Not tried again, so it is never extended twice.
    case extensionOutcomeUnknown(detail: String)
    /// The `Idempotency-Key` was used before for another extension.
    case idempotencyKeyReused
    /// The request has no `Idempotency-Key`.
    case idempotencyKeyRequired
    /// Apple refused a notification history request (a start date it no longer keeps, for one).
    case historyRefused(appleCode: Int64?)

    var status: HTTPResponse.Status {
        switch self {
        case .storeNotSupported, .transactionNotFound, .subscriptionNotFound: .notFound
        case .apiKeyRequired, .idempotencyKeyReused, .historyRefused: .unprocessableContent
        case .extensionRefused, .extensionInProgress, .extensionOutcomeUnknown: .conflict
        case .idempotencyKeyRequired: .badRequest
        }
    }

    var code: String {
        switch self {
        case .storeNotSupported: "store_not_supported"
        case .apiKeyRequired: "api_key_required"
        case .transactionNotFound: "transaction_not_found"
        case .subscriptionNotFound: "subscription_not_found"
        case .extensionRefused(let code, _): code
        case .extensionInProgress: "extension_in_progress"
        case .extensionOutcomeUnknown: "extension_outcome_unknown"
        case .idempotencyKeyReused: "idempotency_key_reused"
        case .idempotencyKeyRequired: "idempotency_key_required"
        case .historyRefused: "notification_history_refused"
        }
    }

    var detail: String {
        switch self {
        case .storeNotSupported(let store):
            "This is an App Store Server API request: use /v1/admin/stores/apple, not \(store)."
        case .apiKeyRequired:
            "This asks the App Store Server API: set the app's api_key under /v1/admin/stores/apple."
        case .transactionNotFound(let id): "The App Store knows no transaction \(id) for this app."
        case .subscriptionNotFound(let id):
            "No App Store subscription with original transaction id \(id) is recorded for this app."
        case .extensionRefused(let code, let appleCode):
            Self.refusals[code, default: "Apple refused to extend this subscription"]
                + " (Apple's errorCode \(appleCode.map(String.init) ?? "none")). Nothing was extended."
        case .extensionInProgress:
            "Another request with this Idempotency-Key is extending this subscription now; retry in a few seconds."
        case .extensionOutcomeUnknown(let detail): detail
        case .idempotencyKeyReused:
            "This Idempotency-Key was used before with a different request; use a new key for a new request."
        case .idempotencyKeyRequired:
            "Send an Idempotency-Key header (1 to 255 printable ASCII characters), a new one for each new request."
        case .historyRefused(let appleCode):
            "Apple refused the notification history request (errorCode \(appleCode.map(String.init) ?? "none")): "
                + "Apple keeps 180 days of production history and 30 days of sandbox history."
        }
    }

    var headers: HTTPFields {
        self == .extensionInProgress ? [.retryAfter: "2"] : [:]
    }

    /// Shopkeeper's codes for Apple's refusals to extend.
    private static let refusals = [
        "subscription_extension_ineligible":
            "The subscription cannot be extended in its state: it is in a free offer period, expired, in billing "
            + "retry, or was already extended twice in the past 365 days",
        "subscription_max_extensions": "The subscription has had the most renewal-date extensions Apple allows",
        "family_shared_subscription": "A subscription shared through Family Sharing cannot be extended on its own",
        "extension_failed": "Apple answered that the extension did not succeed",
    ]

    /// Apple's refusal to extend, in Shopkeeper's words.
    static func extensionRefusal(status: Int, appleCode: Int64?) -> AppStoreSupportError {
        switch appleCode {
        case 4_030_004: .extensionRefused(code: "subscription_extension_ineligible", appleCode: appleCode)
        case 4_030_005: .extensionRefused(code: "subscription_max_extensions", appleCode: appleCode)
        case 4_030_007: .extensionRefused(code: "family_shared_subscription", appleCode: appleCode)
        default: .extensionRefused(code: "extension_failed", appleCode: appleCode)
        }
    }
}

extension ServiceRequestContext {
    /// The caller of an App Store support route (`/v1/admin/stores/{store}/...`): a secret key, and the App Store's
    /// routes only (`store_not_supported` for any other store).
    func requireAppStoreSupportCaller() throws -> InternalCaller {
        let caller = try requireSecretCaller()
        let store = parameters.get("store") ?? ""
        guard store == "apple" else { throw AppStoreSupportError.storeNotSupported(store) }
        return caller
    }
}
