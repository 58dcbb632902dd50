import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// A subscription row with its periods, locked for the caller's transaction.
struct StoredSubscription: Sendable {
    var appID: String
    var store: StorePlatform
    var originalTransactionID: String
    var environment: String
    var groupKey: String
    /// The state last announced (events are written when it changes).
    var state: SubscriptionState
    var facts: SubscriptionFacts
}

/// The statements on `subscriptions.subscriptions` and `subscriptions.periods`.
enum SubscriptionRows {
    /// Locks and reads the subscription; `nil` when there is none for this app.
    static func lock(
        appID: String, store: StorePlatform, originalTransactionID: String, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> StoredSubscription? {
        let storeName: String = store.rawValue
        let rows = try await connection.run(
            Lock.self, try PostgresBindings(storeName, originalTransactionID), logger: logger
        ) { row in
            try row.decode(
                (String, String, String, String, Date?, Bool?, String?, Date?, Bool, Bool, String?, Date?).self)
        }
        guard
            let (
                owner, environment, group, state, observed, willRenew, renewsInto, grace, retry, paused, reason, ended
            ) =
                rows.first, owner == appID
        else { return nil }
        let periods = try await connection.run(
            Periods.self, try PostgresBindings(storeName, originalTransactionID), logger: logger
        ) { row in
            let (id, product, storeProduct, type, starts, ends, revoked, kind, reversed) = try row.decode(
                (String, String, String, String, Date, Date, Date?, String?, Date?).self)
            return SubscriptionFacts.Period(
                transactionID: id, productID: product, storeProductID: storeProduct,
                periodType: SubscriptionPeriodType(rawValue: type) ?? .normal, startsAt: starts, endsAt: ends,
                revokedAt: revoked, revocationKind: kind.flatMap(SubscriptionFacts.RevocationKind.init),
                revocationReversedAt: reversed)
        }
        let renewal = SubscriptionFacts.Renewal(
            observedAt: observed, willRenew: willRenew, renewsIntoStoreProductID: renewsInto, graceExpiresAt: grace,
            billingRetry: retry, paused: paused, expirationReason: reason, endedAt: ended)
        return StoredSubscription(
            appID: appID, store: store, originalTransactionID: originalTransactionID, environment: environment,
            groupKey: group, state: SubscriptionState(rawValue: state) ?? .expired,
            facts: SubscriptionFacts(periods: periods, renewal: renewal))
    }

    /// Inserts a new subscription row with its first `status` (the insert holds its lock). `false` when a
    /// concurrent creator won: lock that one and apply to it instead.
    static func insert(
        _ subscription: StoredSubscription, status: SubscriptionStatus, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        var bindings = try statusBindings(subscription, status: status)
        bindings.append(subscription.appID)
        bindings.append(subscription.environment)
        bindings.append(subscription.groupKey)
        let created = try await connection.run(Insert.self, bindings, logger: logger) { row in try row.decode(Int.self)
        }
        return !created.isEmpty
    }

    /// A period as merged in memory under its subscription's lock, as written (dates as UNIX seconds, exact to the
    /// microsecond).
    struct PeriodRow: Encodable, Sendable {
        var store: String
        var transactionID: String
        var originalTransactionID: String
        var appID: String
        var productID: String
        var storeProductID: String
        var groupKey: String
        var periodType: String
        var startsAt: Double
        var endsAt: Double
        var revokedAt: Double?
        var revocationReason: String?
        var revocationReversedAt: Double?

        init(_ period: SubscriptionFacts.Period, of subscription: StoredSubscription) {
            store = subscription.store.rawValue
            transactionID = period.transactionID
            originalTransactionID = subscription.originalTransactionID
            appID = subscription.appID
            productID = period.productID
            storeProductID = period.storeProductID
            groupKey = subscription.groupKey
            periodType = period.periodType.rawValue
            startsAt = period.startsAt.timeIntervalSince1970
            endsAt = period.endsAt.timeIntervalSince1970
            revokedAt = period.revokedAt?.timeIntervalSince1970
            revocationReason = period.revocationKind?.rawValue
            revocationReversedAt = period.revocationReversedAt?.timeIntervalSince1970
        }

        enum CodingKeys: String, CodingKey {
            case store
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case appID = "app_id"
            case productID = "product_id"
            case storeProductID = "store_product_id"
            case groupKey = "group_key"
            case periodType = "period_type"
            case startsAt = "starts_at"
            case endsAt = "ends_at"
            case revokedAt = "revoked_at"
            case revocationReason = "revocation_reason"
            case revocationReversedAt = "revocation_reversed_at"
        }
    }

    /// Records periods (each at most once: a statement may not change a row twice) with one statement: a
    /// revocation, once known, stays until the store reverses it (``SubscriptionFacts/record(_:)``), and an end
    /// only moves later.
    static func upsert(_ periods: [PeriodRow], on connection: PostgresConnection, logger: Logger) async throws {
        guard !periods.isEmpty else { return }
        let document = String(decoding: try JSONBody.encode(periods), as: UTF8.self)
        try await connection.run(UpsertPeriods.self, try PostgresBindings(document), logger: logger)
    }

    /// Writes the subscription's state and renewal facts.
    static func update(
        _ subscription: StoredSubscription, to status: SubscriptionStatus, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.run(Update.self, try statusBindings(subscription, status: status), logger: logger)
    }

    /// `$1` to `$20` of ``Update`` and ``Insert``: the subscription's key, its status and its renewal facts.
    private static func statusBindings(_ subscription: StoredSubscription, status: SubscriptionStatus) throws
        -> PostgresBindings
    {
        let storeName: String = subscription.store.rawValue
        let renewal = subscription.facts.renewal
        let state: String = status.state.rawValue
        let periodType: String = status.periodType.rawValue
        let willRenew: Bool? = renewal.willRenew
        let renewsInto: String? = renewal.renewsIntoStoreProductID
        let grace: Date? = renewal.graceExpiresAt
        let reason: String? = status.expirationReason
        let observed: Date? = renewal.observedAt
        let ended: Date? = renewal.endedAt
        return try PostgresBindings(
            storeName, subscription.originalTransactionID, status.productID, status.storeProductID, state, periodType,
            status.startedAt, status.expiresAt, status.accessUntil, willRenew, renewsInto, grace, renewal.billingRetry,
            renewal.paused, reason, status.revokedAt, observed, status.nextChangeAt, ended, status.periodStartedAt)
    }

    /// By the primary key alone (the app is checked on the row): with `app_id = $n` in the condition, a plan
    /// cached while the table was small may walk `subscriptions_by_app`, every subscription of the app, instead.
    private enum Lock: PreparedSQL {
        static let sql = """
            SELECT app_id, environment, group_key, state, renewal_observed_at, will_renew,
                   renews_into_store_product_id, grace_expires_at, billing_retry, paused, expiration_reason,
                   store_ended_at
            FROM subscriptions.subscriptions
            WHERE store = $1::text AND original_transaction_id = $2::text
            FOR UPDATE
            """
    }

    private enum Periods: PreparedSQL {
        static let sql = """
            SELECT transaction_id, product_id, store_product_id, period_type, starts_at, ends_at, revoked_at,
                   revocation_reason, revocation_reversed_at
            FROM subscriptions.periods
            WHERE store = $1::text AND original_transaction_id = $2::text
            """
    }

    private enum Insert: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.subscriptions (
                store, original_transaction_id, product_id, store_product_id, state, period_type, started_at,
                expires_at, access_until, will_renew, renews_into_store_product_id, grace_expires_at, billing_retry,
                paused, expiration_reason, revoked_at, renewal_observed_at, next_change_at, store_ended_at,
                period_started_at, app_id, environment, group_key)
            VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::timestamptz, $8::timestamptz,
                    $9::timestamptz, $10::boolean, $11::text, $12::timestamptz, $13::boolean, $14::boolean, $15::text,
                    $16::timestamptz, $17::timestamptz, $18::timestamptz, $19::timestamptz, $20::timestamptz,
                    $21::text, $22::text, $23::text)
            ON CONFLICT (store, original_transaction_id) DO NOTHING
            RETURNING 1
            """
    }

    private enum UpsertPeriods: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.periods AS p (
                store, transaction_id, original_transaction_id, app_id, product_id, store_product_id, group_key,
                period_type, starts_at, ends_at, revoked_at, revocation_reason, revocation_reversed_at)
            SELECT r.store, r.transaction_id, r.original_transaction_id, r.app_id, r.product_id, r.store_product_id,
                   r.group_key, r.period_type, to_timestamp(r.starts_at), to_timestamp(r.ends_at),
                   to_timestamp(r.revoked_at), r.revocation_reason, to_timestamp(r.revocation_reversed_at)
            FROM jsonb_to_recordset($1::text::jsonb) AS r(
                store text, transaction_id text, original_transaction_id text, app_id text, product_id text,
                store_product_id text, group_key text, period_type text, starts_at float8, ends_at float8,
                revoked_at float8, revocation_reason text, revocation_reversed_at float8)
            ON CONFLICT (store, transaction_id) DO UPDATE SET
                ends_at = greatest(p.ends_at, EXCLUDED.ends_at),
                revoked_at = EXCLUDED.revoked_at,
                revocation_reason = EXCLUDED.revocation_reason,
                revocation_reversed_at = EXCLUDED.revocation_reversed_at
            """
    }

    private enum Update: PreparedSQL {
        static let sql = """
            UPDATE subscriptions.subscriptions SET
                product_id = $3::text, store_product_id = $4::text, state = $5::text, period_type = $6::text,
                started_at = $7::timestamptz, expires_at = $8::timestamptz, access_until = $9::timestamptz,
                will_renew = $10::boolean, renews_into_store_product_id = $11::text,
                grace_expires_at = $12::timestamptz, billing_retry = $13::boolean, paused = $14::boolean,
                expiration_reason = $15::text, revoked_at = $16::timestamptz,
                renewal_observed_at = $17::timestamptz, next_change_at = $18::timestamptz,
                store_ended_at = $19::timestamptz, period_started_at = $20::timestamptz, updated_at = now()
            WHERE store = $1::text AND original_transaction_id = $2::text
            """
    }
}
