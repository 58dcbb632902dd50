import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Where each recorded fact stands with the entitlements service: `pending`, `applied` or `refused`.
extension TransactionPostgresRepository {
    /// Whether entitlements' row `applied` (of `entitlements.applied_transactions_v1`) holds the recorded fact `fact`
    /// (of `verifier.transactions`) as it is now: applied, and revoked there too when it is revoked here. A purchase
    /// applied before its refund was recorded is applied, but its refund is not.
    static func appliedAsRecorded(_ applied: String, fact: String = "t") -> String {
        "(\(fact).revocation_date IS NULL OR \(applied).revoked)"
    }

    func markApplied(_ transactions: [StoreTransaction], appID: String, for appUserID: String?) async {
        await setState(transactions, appID: appID, for: appUserID, state: "applied", error: nil)
    }

    /// A fact entitlements refused for this presenter but has applied (for another customer) stays `applied`: the
    /// refusal is of the presentation, not of the fact, and the two services must agree on the fact.
    func markRefused(_ transactions: [StoreTransaction], appID: String, for appUserID: String?, code: String) async {
        await setState(transactions, appID: appID, for: appUserID, state: "refused", error: code)
    }

    /// Sets the state of the facts that were applied for `appUserID` (`nil`: as news, with no presenter), or that are
    /// news for their owner. A fact that has meanwhile been given another presenter (the app's request came while a
    /// notification's apply found no owner) keeps its state: it is still to be applied for that presenter.
    private func setState(
        _ transactions: [StoreTransaction], appID: String, for appUserID: String?, state: String, error: String?
    ) async {
        guard !transactions.isEmpty else { return }
        let byStore = Dictionary(grouping: transactions, by: \.store.rawValue)
        let applied: Bool = state == "applied"
        do {
            try await client.withConnection { connection in
                // Each fact is found by its key (`store`, `transaction_id` = ANY) and its applied row in entitlements
                // by that table's key; the app is compared with `IS NOT DISTINCT FROM`, which no index serves, so the
                // planner cannot pick `transactions_by_original` (every fact of the app) instead. With a join on
                // `app_id = ...`, statistics from when the app had few facts made it scan them all for each batch
                // (7 ms a call at 6,000 facts, growing with the app; `Benchmarks/purchases/run`).
                let known = """
                    (SELECT e.applied_at FROM entitlements.applied_transactions_v1 e
                     WHERE e.store = t.store AND e.transaction_id = t.transaction_id
                       AND e.app_id IS NOT DISTINCT FROM t.app_id AND \(Self.appliedAsRecorded("e")))
                    """
                // What was applied is done only if the recorded fact has learnt no revocation since: a refund
                // recorded while a purchase's apply was under way (its own news apply found no owner yet) is still
                // to be applied, by the background retry.
                let current = "(\(applied) AND (t.revocation_date IS NULL OR k.revoked))"
                for (store, facts) in byStore {
                    let ids: [String] = facts.map(\.transactionID)
                    let revoked: [Bool] = facts.map { $0.revocationDate != nil }
                    try await connection.checkedQuery(
                        """
                        UPDATE verifier.transactions t SET
                            apply_state = CASE WHEN \(unescaped: current) OR \(unescaped: known) IS NOT NULL
                                THEN 'applied' WHEN \(applied) THEN t.apply_state ELSE \(state) END,
                            apply_error = CASE WHEN \(applied) AND NOT \(unescaped: current)
                                AND \(unescaped: known) IS NULL THEN t.apply_error ELSE \(error) END,
                            applied_at = CASE WHEN \(unescaped: current) OR \(unescaped: known) IS NOT NULL
                                THEN coalesce(\(unescaped: known), now()) ELSE t.applied_at END
                        FROM unnest(\(ids)::text[], \(revoked)::boolean[]) AS k(transaction_id, revoked)
                        WHERE t.store = \(store) AND t.transaction_id = k.transaction_id
                          AND t.app_id IS NOT DISTINCT FROM \(appID)
                          AND (t.apply_as = 'owner' OR t.app_user_id IS NOT DISTINCT FROM \(appUserID))
                        """,
                        logger: logger)
                }
            }
        } catch {
            logger.error(
                "could not record the apply state of facts; the background retry applies them again",
                metadata: ["state": "\(state)", "error": "\(String(reflecting: error))"])
        }
    }

    func sweepApplied() async throws -> Int {
        // Only facts past their grace (the request that recorded them had its chance), and only for their
        // presenter: news for an owner (a refund) is applied by the worker even though the transaction is known.
        // A refused fact that another presenter's apply granted meanwhile is applied too.
        let rows = try await client.query(
            """
            UPDATE verifier.transactions t SET apply_state = 'applied', applied_at = a.applied_at, apply_error = NULL
            FROM entitlements.applied_transactions_v1 a
            WHERE ((t.apply_state = 'pending' AND t.apply_as = 'presenter' AND t.next_apply_at <= now())
                    OR t.apply_state = 'refused')
              AND a.store = t.store AND a.transaction_id = t.transaction_id AND a.app_id = t.app_id
              AND \(unescaped: Self.appliedAsRecorded("a"))
            RETURNING 1
            """,
            logger: logger
        )
        var count = 0
        for try await _ in rows.decode(Int.self) { count += 1 }
        return count
    }

    func claimPending(limit: Int, base: Duration) async throws -> [PendingFact] {
        let baseSeconds: Double = Double(base.milliseconds) / 1000
        let rows = try await client.query(
            """
            UPDATE verifier.transactions t
            SET apply_attempts = t.apply_attempts + 1,
                next_apply_at = now() + least(
                    make_interval(secs => \(baseSeconds) * power(2, least(t.apply_attempts, 12))), interval '1 hour')
            FROM (
                -- A presenter's fact the entitlements service has applied since the sweep before this statement looked
                -- (it came due meanwhile) is left for the next sweep to mark, not applied again.
                SELECT v.store, v.transaction_id FROM verifier.transactions v
                WHERE v.apply_state = 'pending' AND v.next_apply_at <= now()
                  AND NOT (v.apply_as = 'presenter' AND EXISTS (
                      SELECT 1 FROM entitlements.applied_transactions_v1 a
                      WHERE a.store = v.store AND a.transaction_id = v.transaction_id AND a.app_id = v.app_id
                        AND \(unescaped: Self.appliedAsRecorded("a", fact: "v"))))
                ORDER BY v.next_apply_at
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED) AS due
            WHERE t.store = due.store AND t.transaction_id = due.transaction_id
            RETURNING t.app_id, t.app_user_id, t.device_id, t.apply_as = 'presenter', t.fact::text
            """,
            logger: logger
        )
        var claimed: [PendingFact] = []
        for try await (appID, user, device, asPresenter, fact) in rows.decode(
            (String, String?, String?, Bool, String).self)
        {
            claimed.append(
                PendingFact(
                    appID: appID, appUserID: user, deviceID: device, asPresenter: asPresenter,
                    transaction: try JSONBody.decode(StoreTransaction.self, from: Data(fact.utf8))))
        }
        return claimed
    }

    func releasePending(_ facts: [PendingFact]) async throws {
        guard !facts.isEmpty else { return }
        let stores: [String] = facts.map(\.transaction.store.rawValue)
        let ids: [String] = facts.map(\.transaction.transactionID)
        try await client.query(
            """
            UPDATE verifier.transactions t
            SET next_apply_at = now(), apply_attempts = greatest(t.apply_attempts - 1, 0)
            FROM unnest(\(stores)::text[], \(ids)::text[]) AS k(store, transaction_id)
            WHERE t.store = k.store AND t.transaction_id = k.transaction_id AND t.apply_state = 'pending'
            """,
            logger: logger
        )
    }

    func recordRevocations(_ transactions: [StoreTransaction], appID: String) async throws -> [StoreTransaction] {
        var news: [StoreTransaction] = []
        for transaction in transactions {
            guard let revocationDate = transaction.revocationDate else { continue }
            let document = String(decoding: try JSONBody.encode(transaction), as: UTF8.self)
            let store: String = transaction.store.rawValue
            let reason: String? = transaction.revocationReason?.rawValue
            let rows = try await client.query(
                """
                UPDATE verifier.transactions SET
                    revocation_date = \(revocationDate), revocation_reason = \(reason), fact = \(document)::jsonb,
                    apply_state = 'pending', apply_as = 'owner', next_apply_at = now(), last_verified_at = now()
                WHERE app_id = \(appID) AND store = \(store) AND transaction_id = \(transaction.transactionID)
                  AND revocation_date IS NULL
                  AND \(revocationDate) > coalesce(revocation_reversed_at, '-infinity')
                RETURNING 1
                """,
                logger: logger
            )
            for try await _ in rows.decode(Int.self) { news.append(transaction) }
        }
        return news
    }
}
