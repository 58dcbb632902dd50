import Logging
import PostgresNIO
import ShopkeeperModels

/// The periods and changes of one apply, kept until its subscriptions are all worked out and then written with one
/// statement each, in the same database transaction: a reader sees all of them or none, as before, for two
/// statements per apply instead of two or three per subscription.
struct SubscriptionWrites {
    private var periods: [SubscriptionRows.PeriodRow] = []
    private var periodIndex: [String: Int] = [:]
    private var changes: [ChangeOutbox.Row] = []

    /// Records `period` of `subscription` as merged in memory; a later call for the same transaction replaces it.
    mutating func period(_ period: SubscriptionFacts.Period, of subscription: StoredSubscription) {
        let row = SubscriptionRows.PeriodRow(period, of: subscription)
        let key = "\(row.store) \(row.transactionID)"
        if let index = periodIndex[key] {
            periods[index] = row
        } else {
            periodIndex[key] = periods.count
            periods.append(row)
        }
    }

    /// Adds the change `type` of `subscription` to the outbox, after those added before it.
    mutating func change(
        _ type: EventType, subscription: StoredSubscription, status: SubscriptionStatus
    ) {
        changes.append(ChangeOutbox.row(type, subscription: subscription, status: status))
    }

    /// Writes the periods, then the changes.
    func write(on connection: PostgresConnection, logger: Logger) async throws {
        try await SubscriptionRows.upsert(periods, on: connection, logger: logger)
        try await ChangeOutbox.append(changes, on: connection, logger: logger)
    }
}
