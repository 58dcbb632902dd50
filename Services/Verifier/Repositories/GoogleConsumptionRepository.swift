import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The queue of Play purchases to consume at Google once granted (`verifier.google_consumptions`). Entries are
/// written with their fact (``TransactionRepository/record(_:appID:presenter:attempt:)``), so this only claims and
/// settles them.
protocol GoogleConsumptionRepository: Sendable {
    /// Leases up to `limit` pending consumes whose time has come to one worker, pushing their next try back by `base`
    /// doubled per attempt (at most an hour), with where each purchase stands with entitlements now.
    func claimDue(limit: Int, base: Duration) async throws -> [PendingConsumption]
    /// The same for the pending consumes of these transactions of `appID`, due or not (the request that granted them
    /// consumes at once; a worker holding one meanwhile makes a second consume, which Google takes as done).
    func claim(transactionIDs: [String], appID: String, base: Duration) async throws -> [PendingConsumption]
    /// Marks a consume done (`consumed`), never to be tried again (`skipped`, with the reason), or failed this time
    /// (kept pending until the lease the claim set runs out, with the error).
    func settle(_ consumption: PendingConsumption, outcome: ConsumptionOutcome) async throws
    /// Hands claimed consumes back untried (shutdown): due again at once, the claim's attempt not counted.
    func release(_ consumptions: [PendingConsumption]) async throws
}

/// A queued consume, leased by a claim, and where its purchase stands with entitlements.
struct PendingConsumption: Sendable, Equatable {
    var appID: String
    /// The Play order id: the purchase's transaction id and, for a one-time purchase, its original transaction id.
    var transactionID: String
    var storeProductID: String
    var purchaseToken: String
    /// The product type entitlements keeps for the purchase (`unknown` when the catalog does not know the store
    /// product); `nil` while no customer holds the purchase.
    var productType: String?
    /// Whether the purchase is revoked (refunded) in entitlements.
    var revoked: Bool
    /// Whether entitlements has applied this transaction (`entitlements.applied_transactions_v1`).
    var applied: Bool

    /// What to do with it now. Only a purchase entitlements has durably granted as a consumable (its units credited
    /// in the same database transaction that recorded it) is consumed; any other known product type is never
    /// consumed; a purchase not granted yet, or of a product the catalog does not know yet, waits.
    var decision: ConsumptionDecision {
        if revoked { return .skip("refunded or revoked") }
        guard applied, let productType, productType != "unknown" else { return .wait }
        guard ProductType(rawValue: productType) == .consumable else {
            return .skip("not a consumable: \(productType)")
        }
        return .consume
    }
}

/// What the consume worker does with a claimed consume.
enum ConsumptionDecision: Sendable, Equatable {
    case consume
    /// Never consume it, for this reason.
    case skip(String)
    /// Not granted yet: look again after the backoff.
    case wait
}

/// How a claimed consume ended.
enum ConsumptionOutcome: Sendable, Equatable {
    case consumed
    case skipped(reason: String)
    case failed(reason: String)
}

/// ``GoogleConsumptionRepository`` on PostgreSQL; reads entitlements' published views (`purchases_v1`,
/// `applied_transactions_v1`) to tell a durable grant.
struct GoogleConsumptionPostgresRepository: GoogleConsumptionRepository {
    let client: PostgresClient
    let logger: Logger

    func claimDue(limit: Int, base: Duration) async throws -> [PendingConsumption] {
        let seconds: Double = Double(base.milliseconds) / 1000
        return try await decode(
            client.query(
                """
                WITH due AS (
                    SELECT transaction_id FROM verifier.google_consumptions
                    WHERE state = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED)
                UPDATE verifier.google_consumptions c
                SET attempts = c.attempts + 1,
                    next_attempt_at = now() + least(
                        make_interval(secs => \(seconds) * power(2, least(c.attempts, 12))), interval '1 hour')
                FROM due WHERE c.transaction_id = due.transaction_id
                \(unescaped: Self.returning)
                """,
                logger: logger))
    }

    func release(_ consumptions: [PendingConsumption]) async throws {
        guard !consumptions.isEmpty else { return }
        let ids: [String] = consumptions.map(\.transactionID)
        try await client.query(
            """
            UPDATE verifier.google_consumptions c SET next_attempt_at = now(), attempts = greatest(c.attempts - 1, 0)
            WHERE c.transaction_id = ANY(\(ids)::text[]) AND c.state = 'pending'
            """,
            logger: logger)
    }

    func claim(transactionIDs: [String], appID: String, base: Duration) async throws -> [PendingConsumption] {
        guard !transactionIDs.isEmpty else { return [] }
        let seconds: Double = Double(base.milliseconds) / 1000
        return try await decode(
            client.query(
                """
                WITH due AS (
                    SELECT transaction_id FROM verifier.google_consumptions
                    WHERE state = 'pending' AND app_id = \(appID) AND transaction_id = ANY(\(transactionIDs))
                    FOR UPDATE SKIP LOCKED)
                UPDATE verifier.google_consumptions c
                SET attempts = c.attempts + 1,
                    next_attempt_at = now() + least(
                        make_interval(secs => \(seconds) * power(2, least(c.attempts, 12))), interval '1 hour')
                FROM due WHERE c.transaction_id = due.transaction_id
                \(unescaped: Self.returning)
                """,
                logger: logger))
    }

    /// A claimed consume and its purchase's grant, read from entitlements' views as of the claim. For a one-time Play
    /// purchase the order id is both the transaction id and the original transaction id.
    private static let returning = """
        RETURNING c.app_id, c.transaction_id, c.store_product_id, c.purchase_token,
            (SELECT p.product_type FROM entitlements.purchases_v1 p
             WHERE p.app_id = c.app_id AND p.store = 'play_store' AND p.original_transaction_id = c.transaction_id),
            coalesce((SELECT p.revoked_at IS NOT NULL FROM entitlements.purchases_v1 p
             WHERE p.app_id = c.app_id AND p.store = 'play_store' AND p.original_transaction_id = c.transaction_id),
             false),
            EXISTS (SELECT 1 FROM entitlements.applied_transactions_v1 a
                    WHERE a.app_id = c.app_id AND a.store = 'play_store' AND a.transaction_id = c.transaction_id)
        """

    private func decode(_ rows: PostgresRowSequence) async throws -> [PendingConsumption] {
        var claimed: [PendingConsumption] = []
        for try await (app, id, product, token, type, revoked, applied) in rows.decode(
            (String, String, String, String, String?, Bool, Bool).self)
        {
            claimed.append(
                PendingConsumption(
                    appID: app, transactionID: id, storeProductID: product, purchaseToken: token, productType: type,
                    revoked: revoked, applied: applied))
        }
        return claimed
    }

    func settle(_ consumption: PendingConsumption, outcome: ConsumptionOutcome) async throws {
        let (state, error): (String, String?) =
            switch outcome {
            case .consumed: ("consumed", nil)
            case .skipped(let reason): ("skipped", reason)
            case .failed(let reason): ("pending", reason)
            }
        try await client.query(
            """
            UPDATE verifier.google_consumptions SET
                state = \(state), last_error = \(error),
                consumed_at = CASE WHEN \(state) = 'consumed' THEN now() ELSE consumed_at END
            WHERE transaction_id = \(consumption.transactionID) AND state = 'pending'
            """,
            logger: logger)
    }
}
