import Metrics
import PostgresNIO
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// The verifier's business metrics, declared in one place (`/metrics` on the verifier's port).
///
/// - `shopkeeper_purchases_total{store, outcome}`: `POST /v1/purchases` requests by store (`app_store`,
///   `play_store`, `unknown` when no proof was given) and ``PurchaseOutcome``.
/// - `shopkeeper_verifications_total{proof_kind, outcome}`: every verification attempt the audit log records,
///   `outcome` `verified`, `invalid` (a verdict) or `retryable` (the store did not answer usefully).
/// - `shopkeeper_verification_failures_total{proof_kind, code}`: the failed ones by problem code (`invalid_jws`,
///   `transaction_not_found`, `store_unavailable`...).
/// - `shopkeeper_store_requests_total{store, endpoint, result}` and
///   `shopkeeper_store_request_duration_seconds{store, endpoint}`: every HTTP call to Apple or Google
///   (``StoreEndpoint``), `result` the status class (`2xx`, `4xx`, `429`, `5xx`) or `timeout`/`unreachable`.
/// - `shopkeeper_notification_backlog`, `shopkeeper_notification_backlog_oldest_seconds` and
///   `shopkeeper_apply_pending`: gauges read periodically from the database (``backlogGauges``).
enum VerifierMetrics {
    static let purchases = "shopkeeper_purchases_total"
    static let verifications = "shopkeeper_verifications_total"
    static let verificationFailures = "shopkeeper_verification_failures_total"
    static let storeRequests = "shopkeeper_store_requests_total"
    static let storeRequestDuration = "shopkeeper_store_request_duration_seconds"

    /// Counts one purchase request.
    static func purchase(store: String, outcome: PurchaseOutcome) {
        Counter(label: purchases, dimensions: [("store", store), ("outcome", outcome.rawValue)]).increment()
    }

    /// Counts one verification attempt as the audit log records it.
    static func attempt(_ attempt: VerificationAttempt) {
        let kind = attempt.proofKind.rawValue
        Counter(label: verifications, dimensions: [("proof_kind", kind), ("outcome", attempt.outcome.rawValue)])
            .increment()
        guard attempt.outcome != .verified else { return }
        Counter(label: verificationFailures, dimensions: [("proof_kind", kind), ("code", attempt.code ?? "unknown")])
            .increment()
    }

    /// Records one store call: its result and how long it took.
    static func storeCall(_ endpoint: StoreEndpoint, result: String, nanoseconds: Int64) {
        let store = ("store", endpoint.store.rawValue)
        Counter(label: storeRequests, dimensions: [store, ("endpoint", endpoint.rawValue), ("result", result)])
            .increment()
        Metrics.Timer(
            label: storeRequestDuration, dimensions: [store, ("endpoint", endpoint.rawValue)],
            preferredDisplayUnit: .seconds
        ).recordNanoseconds(nanoseconds)
    }

    /// The status class a store answered with (`429` apart: it is the store's rate limit).
    static func result(status: Int) -> String {
        status == 429 ? "429" : "\(min(max(status / 100, 1), 5))xx"
    }

    /// The store a purchase request's proof is for.
    static func store(of proof: StoreProofFields) -> String {
        if proof.purchaseToken != nil { return StorePlatform.playStore.rawValue }
        if proof.signedTransaction != nil || proof.receiptData != nil || proof.signedAppTransaction != nil {
            return StorePlatform.appStore.rawValue
        }
        return "unknown"
    }

    /// The verifier's backlog gauges: store notifications received and not processed yet (and how long the oldest
    /// has waited), and recorded purchases whose apply is overdue (past the grace the request had, and not applied by
    /// the entitlements service): the background retry's work.
    static let backlogGauges = [
        DatabaseGauge(name: "shopkeeper_notification_backlog") {
            "SELECT count(*)::float8 FROM verifier.notifications WHERE state = 'pending'"
        },
        DatabaseGauge(name: "shopkeeper_notification_backlog_oldest_seconds") {
            """
            SELECT coalesce(extract(epoch FROM now() - min(received_at)), 0)::float8
            FROM verifier.notifications WHERE state = 'pending'
            """
        },
        DatabaseGauge(name: "shopkeeper_apply_pending") {
            """
            SELECT count(*)::float8 FROM verifier.transactions t
            WHERE t.apply_state = 'pending' AND t.next_apply_at <= now()
              AND NOT EXISTS (
                SELECT 1 FROM entitlements.applied_transactions_v1 a
                WHERE a.store = t.store AND a.transaction_id = t.transaction_id AND a.app_id = t.app_id)
            """
        },
    ]
}

/// How a `POST /v1/purchases` ended, for ``VerifierMetrics/purchases``.
enum PurchaseOutcome: String, Sendable, CaseIterable {
    /// Applied, and something changed: granted, credited, transferred, a subscription recorded, reinstated.
    case granted
    /// Every transaction had been applied before: nothing changed.
    case duplicate
    /// Recorded, but the store product is not in the catalog.
    case unknownProduct = "unknown_product"
    /// Recorded and applied with nothing to grant (an app transaction, news of a refund).
    case recorded
    /// The proof is not genuine or not this app's (a verdict on the proof: 409/422).
    case rejected
    /// The entitlements service refused to apply it (device limit, another owner).
    case refused
    /// Recorded, but not applied yet: the background retry will (503 `apply_pending`).
    case pending
    /// The request was malformed (400/422 before any verification).
    case invalid
    /// No verdict: the store or a dependency did not answer (503), or another failure.
    case failed

    /// The outcome of an applied purchase.
    static func of(_ outcomes: [TransactionOutcome]) -> PurchaseOutcome {
        let kinds = outcomes.map(\.outcome)
        if kinds.contains(where: {
            [.granted, .credited, .transferred, .subscriptionRecorded, .reinstated].contains($0)
        }) {
            return .granted
        }
        if !kinds.isEmpty && kinds.allSatisfy({ $0 == .alreadyApplied }) { return .duplicate }
        if kinds.contains(.unknownProduct) { return .unknownProduct }
        return .recorded
    }

    /// The outcome of a purchase that failed with `error`.
    static func of(_ error: any Error) -> PurchaseOutcome {
        if let error = error as? VerifierError {
            if case .applyPending = error { return .pending }
            return error.isVerdict ? .rejected : .failed
        }
        if error is RemoteProblem { return .refused }
        if error is RequestError { return .invalid }
        return .failed
    }
}

/// The store APIs the verifier calls, for ``VerifierMetrics/storeRequests``.
enum StoreEndpoint: String, Sendable, CaseIterable {
    /// The App Store Server API (transactions, history, statuses, order lookup, consumption).
    case appStoreServerAPI = "app_store_server_api"
    /// Apple's `verifyReceipt`, production or sandbox.
    case verifyReceipt = "verify_receipt"
    /// The Google Play Developer API.
    case playDeveloperAPI = "play_developer_api"
    /// Google's OAuth token endpoint (a service account's access token).
    case googleOAuthToken = "google_oauth_token"
    /// Stripe's API (events, Checkout Sessions, subscriptions, invoices, charges, disputes).
    case stripeAPI = "stripe_api"
    /// The App Store Connect API (the catalog sync).
    case appStoreConnectAPI = "app_store_connect_api"

    var store: StorePlatform {
        switch self {
        case .appStoreServerAPI, .verifyReceipt, .appStoreConnectAPI: .appStore
        case .playDeveloperAPI, .googleOAuthToken: .playStore
        case .stripeAPI: .stripe
        }
    }
}
