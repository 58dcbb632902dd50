import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// A trial as stored.
struct StoredTrial: Sendable, Equatable {
    var trialID: UUID
    var productID: String
    var groupKey: String
    var startedAt: Date
    var endsAt: Date

    func info(at now: Date) -> TrialInfo {
        TrialInfo(
            state: now < endsAt ? .active : .expired, productID: productID, startedAt: startedAt, expiresAt: endsAt)
    }
}

/// The statements on `subscriptions.trials`, `trial_devices` and the periods eligibility looks at.
enum TrialRows {
    /// The trial any of these customers (one customer and those merged into it) started; the earliest.
    static func trial(appID: String, customerIDs: [UUID], on connection: PostgresConnection, logger: Logger)
        async throws -> StoredTrial?
    {
        try await connection.run(ByCustomers.self, try PostgresBindings(appID, customerIDs), logger: logger) { row in
            let (id, product, group, started, ends) = try row.decode((UUID, String, String, Date, Date).self)
            return StoredTrial(trialID: id, productID: product, groupKey: group, startedAt: started, endsAt: ends)
        }.first
    }

    /// Whether a trial was started or seen on this device.
    static func deviceHadTrial(
        appID: String, deviceID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await !connection.run(Device.self, try PostgresBindings(appID, deviceID), logger: logger) { _ in () }
            .isEmpty
    }

    /// Why these store purchases make the group's intro offer unavailable: `intro_offer_used` (a store trial or
    /// intro offer) or `already_subscribed`; `nil` when they do not.
    static func storeIntroUsed(
        appID: String, groupKey: String, purchases: [StorePurchaseKey], on connection: PostgresConnection,
        logger: Logger
    ) async throws -> EligibilityReason? {
        guard !purchases.isEmpty else { return nil }
        let stores: [String] = purchases.map(\.store.rawValue)
        let ids: [String] = purchases.map(\.originalTransactionID)
        let rows = try await connection.run(
            GroupPeriods.self, try PostgresBindings(appID, groupKey, stores, ids), logger: logger
        ) { try $0.decode(Bool.self) }
        guard let introUsed = rows.first else { return nil }
        return introUsed ? .introOfferUsed : .alreadySubscribed
    }

    private enum ByCustomers: PreparedSQL {
        static let sql = """
            SELECT trial_id, product_id, group_key, started_at, ends_at FROM subscriptions.trials
            WHERE app_id = $1::text AND customer_id = ANY($2::uuid[])
            ORDER BY started_at LIMIT 1
            """
    }

    private enum Device: PreparedSQL {
        static let sql = """
            SELECT 1 FROM subscriptions.trial_devices WHERE app_id = $1::text AND device_id = $2::text
            """
    }

    /// One row when the customer had any period in the group: whether one was a trial or intro offer.
    private enum GroupPeriods: PreparedSQL {
        static let sql = """
            SELECT bool_or(p.period_type IN ('trial', 'intro'))
            FROM subscriptions.periods p
            JOIN unnest($3::text[], $4::text[]) AS k(store, original_transaction_id)
              ON p.store = k.store AND p.original_transaction_id = k.original_transaction_id
            WHERE p.app_id = $1::text AND p.group_key = $2::text
            HAVING count(*) > 0
            """
    }
}
