import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Writes subscription and trial changes to `subscriptions.changes` in the caller's transaction: the change and its
/// record commit together. The entitlements service relays them to the customer's events and webhooks.
enum ChangeOutbox {
    /// One change, as written.
    struct Row: Encodable, Sendable {
        var appID: String
        var type: EventType
        var store: String?
        var originalTransactionID: String?
        var customerID: UUID?
        var environment: String?
        var payload: ChangePayload

        enum CodingKeys: String, CodingKey {
            case type, store, environment, payload
            case appID = "app_id"
            case originalTransactionID = "original_transaction_id"
            case customerID = "customer_id"
        }
    }

    /// A subscription's change.
    static func row(_ type: EventType, subscription: StoredSubscription, status: SubscriptionStatus) -> Row {
        let payload = ChangePayload(
            productID: status.productID, storeProductID: status.storeProductID, store: subscription.store.rawValue,
            environment: subscription.environment, transactionID: status.transactionID,
            originalTransactionID: subscription.originalTransactionID, state: status.state.rawValue,
            periodType: status.periodType.rawValue, expiresAt: status.expiresAt, willRenew: status.willRenew,
            gracePeriodExpiresAt: status.graceExpiresAt, expirationReason: status.expirationReason,
            revokedAt: status.revokedAt)
        return Row(
            appID: subscription.appID, type: type, store: subscription.store.rawValue,
            originalTransactionID: subscription.originalTransactionID, customerID: nil,
            environment: subscription.environment, payload: payload)
    }

    /// A change of the app's own trial.
    static func appendTrial(
        _ type: EventType, appID: String, customerID: UUID, productID: String, expiresAt: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let payload = ChangePayload(
            productID: productID, state: type == .trialExpired ? "expired" : "trial", periodType: "trial",
            expiresAt: expiresAt, source: "trial")
        let row = Row(
            appID: appID, type: type, store: nil, originalTransactionID: nil, customerID: customerID,
            environment: nil, payload: payload)
        try await append([row], on: connection, logger: logger)
    }

    /// Writes `rows` in their order (the relay follows the order of `sequence`) with one statement.
    static func append(_ rows: [Row], on connection: PostgresConnection, logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        let document = String(decoding: try JSONBody.encode(rows), as: UTF8.self)
        try await connection.run(Append.self, try PostgresBindings(document), logger: logger)
    }

    private enum Append: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.changes (
                app_id, type, store, original_transaction_id, customer_id, environment, payload)
            SELECT r.app_id, r.type, r.store, r.original_transaction_id, r.customer_id, r.environment, r.payload
            FROM ROWS FROM (jsonb_to_recordset($1::text::jsonb) AS (
                    app_id text, type text, store text, original_transaction_id text, customer_id uuid,
                    environment text, payload jsonb))
                WITH ORDINALITY AS r(
                    app_id, type, store, original_transaction_id, customer_id, environment, payload, position)
            ORDER BY r.position
            """
    }
}

/// The body of a change, in the same words as customer info; it becomes the event's payload as it is.
struct ChangePayload: Codable, Sendable, Equatable {
    var productID: String?
    var storeProductID: String?
    var store: String?
    var environment: String?
    var transactionID: String?
    var originalTransactionID: String?
    var state: String?
    var periodType: String?
    var expiresAt: Date?
    var willRenew: Bool?
    var gracePeriodExpiresAt: Date?
    var expirationReason: String?
    var revokedAt: Date?
    var source: String?

    enum CodingKeys: String, CodingKey {
        case store, environment, state, source
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case periodType = "period_type"
        case expiresAt = "expires_at"
        case willRenew = "will_renew"
        case gracePeriodExpiresAt = "grace_period_expires_at"
        case expirationReason = "expiration_reason"
        case revokedAt = "revoked_at"
    }
}
