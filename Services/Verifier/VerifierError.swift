import HTTPTypes
import ShopkeeperHTTP
import ShopkeeperStores

/// Verifier failures with their HTTP rendering.
///
/// A proof that is forged, mismatched or not a purchase is *invalid* (4xx, with a specific code, never
/// worth retrying); a store that cannot answer now is *retryable* (503 with `Retry-After`), and nothing
/// is recorded as invalid for it.
enum VerifierError: ProblemError, Equatable {
    /// The proof is not acceptable; `code` says why (`invalid_signature`, `wrong_bundle_id`, ...).
    case proofRejected(code: String, detail: String)
    /// The store did not give a usable answer in time; try again after `retryAfterSeconds`.
    case storeUnavailable(store: String, reason: String, retryAfterSeconds: Int)
    /// The app has no credentials for the store the proof comes from.
    case storeNotConfigured(CredentialStore)
    /// The app's Apple credentials have no App Store Connect API key (`connect_api_key`): the catalog sync needs one.
    case connectKeyNotConfigured
    /// The store refused the app's credentials (a revoked API key, a deleted service account).
    case storeCredentialsRejected(CredentialStore, String)
    /// The transaction is already recorded for another app.
    case transactionOfAnotherApp(String)
    /// Stored credentials do not open: the master key changed, or the row is damaged. An operator must act.
    case credentialsUnreadable(CredentialStore, String)
    /// No credentials for that store to show or delete.
    case credentialsNotFound(CredentialStore)
    /// The facts are recorded but the entitlements service did not apply them; the background retry will.
    case applyPending(reason: String)
    /// A store notification names no app here, or more than one (`?app=` on the notification URL decides).
    case notificationUnattributed(code: String, detail: String)
    /// A Pub/Sub push without a valid OIDC token or push token.
    case pushUnauthenticated
    /// Stripe refused a call for a reason another try will not change (an object it does not know, a parameter it
    /// does not take), with its error object.
    case stripeRefused(status: Int, error: StripeErrorBody)
    /// A webhook whose signature header does not authenticate it (forged, tampered, too old, missing).
    case webhookSignatureInvalid(String)
    /// The customer owns nothing bought through Stripe, so Stripe has no customer of theirs (a portal to open).
    case noStripeCustomer

    var status: HTTPResponse.Status {
        switch self {
        case .connectKeyNotConfigured: .unprocessableContent
        case .proofRejected: .unprocessableContent
        case .storeUnavailable: .serviceUnavailable
        case .storeNotConfigured, .storeCredentialsRejected: .unprocessableContent
        case .transactionOfAnotherApp: .conflict
        case .credentialsNotFound: .notFound
        case .credentialsUnreadable: .internalServerError
        case .applyPending: .serviceUnavailable
        case .notificationUnattributed(let code, _): code == "ambiguous_app" ? .conflict : .notFound
        case .pushUnauthenticated: .unauthorized
        case .stripeRefused: .unprocessableContent
        case .webhookSignatureInvalid: .badRequest
        case .noStripeCustomer: .conflict
        }
    }

    var code: String {
        switch self {
        case .proofRejected(let code, _): code
        case .connectKeyNotConfigured: "connect_api_key_missing"
        case .storeUnavailable: "store_unavailable"
        case .storeNotConfigured: "store_not_configured"
        case .storeCredentialsRejected: "store_credentials_rejected"
        case .transactionOfAnotherApp: "transaction_belongs_to_another_app"
        case .credentialsNotFound: "store_credentials_not_found"
        case .credentialsUnreadable: "store_credentials_unreadable"
        case .applyPending: "apply_pending"
        case .notificationUnattributed(let code, _): code
        case .pushUnauthenticated: "invalid_push_token"
        case .stripeRefused: "stripe_request_refused"
        case .webhookSignatureInvalid: "invalid_signature"
        case .noStripeCustomer: "no_stripe_customer"
        }
    }

    var detail: String {
        switch self {
        case .proofRejected(_, let detail): detail
        case .connectKeyNotConfigured:
            "This app has no App Store Connect API key; set connect_api_key with PUT /v1/admin/stores/apple."
        case .storeUnavailable(let store, let reason, _):
            "\(store) could not verify the purchase right now (\(reason)); nothing was recorded, retry later."
        case .storeNotConfigured(let store):
            "This app has no \(store.rawValue) store credentials; set them with PUT /v1/admin/stores/\(store.rawValue)."
        case .storeCredentialsRejected(let store, let reason):
            "The \(store.rawValue) store refused this app's credentials: \(reason). Update them under /v1/admin/stores."
        case .transactionOfAnotherApp(let id): "Transaction \(id) is already recorded for another app."
        case .notificationUnattributed(_, let detail): detail
        case .pushUnauthenticated:
            "The push carries no valid Google OIDC token for this endpoint, nor the app's push token (?token=)."
        case .webhookSignatureInvalid(let reason): "The webhook's signature does not authenticate it: \(reason)."
        case .noStripeCustomer:
            "This customer has bought nothing through Stripe (or redeemed nothing bought there), so there is no "
                + "Stripe customer whose subscriptions and payments to manage."
        case .stripeRefused(let status, let error):
            "Stripe refused the request (\(status) \(error.type)\(error.code.map { " " + $0 } ?? "")"
                + "\(error.param.map { ", param " + $0 } ?? "")): \(error.message ?? "no message")"
        case .credentialsNotFound(let store): "This app has no \(store.rawValue) store credentials."
        case .credentialsUnreadable(let store, let reason):
            "This app's \(store.rawValue) store credentials cannot be read on this server (\(reason)); set them again "
                + "with PUT /v1/admin/stores/\(store.rawValue), or restore SHOPKEEPER_MASTER_KEY."
        case .applyPending(let reason):
            "The purchase is verified and recorded, but granting it did not finish (\(reason)); it is retried in the "
                + "background. Retry this request (it is safe) and finish the store transaction only after a success."
        }
    }

    var headers: HTTPFields {
        if case .storeUnavailable(_, _, let seconds) = self {
            return [.retryAfter: String(seconds)]
        }
        if case .applyPending = self {
            return [.retryAfter: "2"]
        }
        return [:]
    }

    /// Whether this outcome is a verdict on the proof (logged as `invalid`) rather than a failure to reach one.
    var isVerdict: Bool {
        switch self {
        case .proofRejected, .transactionOfAnotherApp, .notificationUnattributed, .pushUnauthenticated,
            .stripeRefused, .webhookSignatureInvalid:
            true
        case .storeUnavailable, .storeNotConfigured, .storeCredentialsRejected, .credentialsNotFound,
            .credentialsUnreadable, .applyPending, .connectKeyNotConfigured, .noStripeCustomer:
            false
        }
    }
}
