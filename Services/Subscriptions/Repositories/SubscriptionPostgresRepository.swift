import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// Subscription timelines in PostgreSQL. Each subscription is changed under its row lock, so the same facts
/// applied by several replicas at once change it once and write its events once.
struct SubscriptionPostgresRepository: SubscriptionRepository {
    let client: PostgresClient
    let logger: Logger
    var now: @Sendable () -> Date = { Date() }

    func apply(_ request: SubscriptionApplyRequest, appID: String) async throws -> [SubscriptionInfo] {
        let work = Self.group(request)
        guard !work.isEmpty else { return [] }
        return try await client.transaction(logger: logger) { connection in
            var products: [StorePlatform: [String: SubscriptionProduct]] = [:]
            for store in Set(work.map(\.key.store)) {
                let ids = Set(request.transactions.filter { $0.store == store }.map(\.storeProductID))
                products[store] = try await CatalogSubscriptions.products(
                    appID: appID, store: store, storeProductIDs: ids.sorted(), on: connection, logger: logger)
            }
            var touched: [SubscriptionInfo] = []
            var writes = SubscriptionWrites()
            // A fixed order, so two applies touching the same subscriptions never wait on each other in a cycle.
            for (key, facts) in work.sorted(by: { $0.key < $1.key }) {
                let known = products[key.store] ?? [:]
                let periods = facts.transactions.compactMap { transaction -> (SubscriptionFacts.Period, String)? in
                    guard let product = known[transaction.storeProductID], product.type == .autoRenewable,
                        let period = SubscriptionPeriods.period(of: transaction, product: product)
                    else { return nil }
                    return (period, product.groupKey)
                }
                if let info = try await apply(
                    key: key, periods: periods, renewals: facts.renewals,
                    environment: facts.transactions.first?.environment.rawValue, appID: appID, writes: &writes,
                    on: connection)
                {
                    touched.append(info)
                }
            }
            try await writes.write(on: connection, logger: logger)
            return touched
        }
    }

    /// Applies one subscription's facts under its lock; `nil` when it is not a known subscription.
    private func apply(
        key: SubscriptionKey, periods: [(SubscriptionFacts.Period, String)], renewals: [SubscriptionRenewalFacts],
        environment: String?, appID: String, writes: inout SubscriptionWrites, on connection: PostgresConnection
    ) async throws -> SubscriptionInfo? {
        if let stored = try await SubscriptionRows.lock(
            appID: appID, store: key.store, originalTransactionID: key.originalTransactionID, on: connection,
            logger: logger)
        {
            return try await apply(periods: periods, renewals: renewals, to: stored, writes: &writes, on: connection)
        }
        guard let (_, group) = periods.first, let environment else { return nil }
        // A new subscription: its first status is worked out in memory and inserted whole, unless a concurrent
        // apply created it first (then this one applies to that row like to any other).
        var new = StoredSubscription(
            appID: appID, store: key.store, originalTransactionID: key.originalTransactionID,
            environment: environment, groupKey: group, state: .expired,
            facts: SubscriptionFacts(periods: [], renewal: SubscriptionFacts.Renewal()))
        let at = now()
        for (period, _) in periods { new.facts.record(period) }
        for renewal in renewals.sorted(by: { $0.observedAt < $1.observedAt }) { new.facts.record(renewal) }
        if let status = SubscriptionTimeline.status(of: new.facts, at: at) {
            if try await SubscriptionRows.insert(new, status: status, on: connection, logger: logger) {
                for period in new.facts.periods { writes.period(period, of: new) }
                announce(new, from: nil, to: status, writes: &writes)
                return SubscriptionPresenter.info(new, status: status)
            }
        }
        guard
            let created = try await SubscriptionRows.lock(
                appID: appID, store: key.store, originalTransactionID: key.originalTransactionID, on: connection,
                logger: logger)
        else { return nil }
        return try await apply(periods: periods, renewals: renewals, to: created, writes: &writes, on: connection)
    }

    /// Applies one subscription's facts to its locked row.
    private func apply(
        periods: [(SubscriptionFacts.Period, String)], renewals: [SubscriptionRenewalFacts],
        to stored: StoredSubscription, writes: inout SubscriptionWrites, on connection: PostgresConnection
    ) async throws -> SubscriptionInfo? {
        var subscription = stored
        let at = now()
        let before = SubscriptionTimeline.status(of: subscription.facts, at: at).map { status in
            var announced = status
            announced.state = subscription.state
            return announced
        }
        for (period, _) in periods {
            let old = subscription.facts.periods.first { $0.transactionID == period.transactionID }
            subscription.facts.record(period)
            let merged = subscription.facts.periods.first { $0.transactionID == period.transactionID }
            if merged != old, let merged {
                writes.period(merged, of: subscription)
            }
        }
        for renewal in renewals.sorted(by: { $0.observedAt < $1.observedAt }) {
            subscription.facts.record(renewal)
        }
        guard let after = SubscriptionTimeline.status(of: subscription.facts, at: at) else { return nil }
        try await write(subscription, from: before, to: after, writes: &writes, on: connection)
        return SubscriptionPresenter.info(subscription, status: after)
    }

    /// Writes the new status and the events of the change, when anything changed.
    private func write(
        _ subscription: StoredSubscription, from before: SubscriptionStatus?, to after: SubscriptionStatus,
        writes: inout SubscriptionWrites, on connection: PostgresConnection
    ) async throws {
        guard before != after || subscription.state != after.state else { return }
        try await SubscriptionRows.update(subscription, to: after, on: connection, logger: logger)
        announce(subscription, from: before, to: after, writes: &writes)
    }

    /// Adds the events of a change of status to the outbox writes.
    private func announce(
        _ subscription: StoredSubscription, from before: SubscriptionStatus?, to after: SubscriptionStatus,
        writes: inout SubscriptionWrites
    ) {
        for event in SubscriptionChange.events(from: before, to: after) {
            writes.change(event, subscription: subscription, status: after)
        }
    }

    func sweepDue(limit: Int) async throws -> Int {
        let at = now()
        return try await client.transaction(logger: logger) { connection in
            let due = try await connection.run(Due.self, try PostgresBindings(at, limit), logger: logger) { row in
                try row.decode((String, String, String).self)
            }
            var writes = SubscriptionWrites()
            for (store, originalTransactionID, appID) in due {
                guard let platform = StorePlatform(rawValue: store),
                    let subscription = try await SubscriptionRows.lock(
                        appID: appID, store: platform, originalTransactionID: originalTransactionID, on: connection,
                        logger: logger),
                    let after = SubscriptionTimeline.status(of: subscription.facts, at: at)
                else { continue }
                var before = after
                before.state = subscription.state
                before.nextChangeAt = .distantPast
                try await write(subscription, from: before, to: after, writes: &writes, on: connection)
            }
            try await writes.write(on: connection, logger: logger)
            return due.count
        }
    }

    /// Subscriptions whose state changes by itself by `$1`, oldest first; replicas skip each other's.
    private enum Due: PreparedSQL {
        static let sql = """
            SELECT store, original_transaction_id, app_id FROM subscriptions.subscriptions
            WHERE next_change_at <= $1::timestamptz
            ORDER BY next_change_at
            LIMIT $2::bigint
            FOR UPDATE SKIP LOCKED
            """
    }

    /// Transactions and renewal facts by the subscription they belong to.
    static func group(_ request: SubscriptionApplyRequest) -> [SubscriptionKey: SubscriptionWork] {
        var work: [SubscriptionKey: SubscriptionWork] = [:]
        for transaction in request.transactions {
            let key = SubscriptionKey(
                store: transaction.store, originalTransactionID: transaction.originalTransactionID)
            work[key, default: SubscriptionWork()].transactions.append(transaction)
        }
        for renewal in request.renewals {
            let key = SubscriptionKey(store: renewal.store, originalTransactionID: renewal.originalTransactionID)
            work[key, default: SubscriptionWork()].renewals.append(renewal)
        }
        return work
    }
}

/// A subscription by its store identity.
struct SubscriptionKey: Hashable, Comparable, Sendable {
    var store: StorePlatform
    var originalTransactionID: String

    static func < (lhs: SubscriptionKey, rhs: SubscriptionKey) -> Bool {
        (lhs.store.rawValue, lhs.originalTransactionID) < (rhs.store.rawValue, rhs.originalTransactionID)
    }
}

/// The facts one apply brings for one subscription.
struct SubscriptionWork: Sendable {
    var transactions: [StoreTransaction] = []
    var renewals: [SubscriptionRenewalFacts] = []
}
