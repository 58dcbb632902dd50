import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Writes subscription and trial changes to `subscriptions.changes` in the caller's transaction: the change and its
/// record commit together. The entitlements service relays them to the customer's events and webhooks.
enum ChangeOutbox {
    /// A subscription's change.
    static func append(
        _ type: SubscriptionEventType, subscription: StoredSubscription, status: SubscriptionStatus,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let payload = ChangePayload(
            productID: status.productID, storeProductID: status.storeProductID, store: subscription.store.rawValue,
            environment: subscription.environment, transactionID: status.transactionID,
            originalTransactionID: subscription.originalTransactionID, state: status.state.rawValue,
            periodType: status.periodType.rawValue, expiresAt: status.expiresAt, willRenew: status.willRenew,
            gracePeriodExpiresAt: status.graceExpiresAt, expirationReason: status.expirationReason,
            revokedAt: status.revokedAt)
        try await append(
            type, appID: subscription.appID, store: subscription.store.rawValue,
            originalTransactionID: subscription.originalTransactionID, customerID: nil,
            environment: subscription.environment, payload: payload, on: connection, logger: logger)
    }

    /// A change of the app's own trial.
    static func appendTrial(
        _ type: SubscriptionEventType, appID: String, customerID: UUID, productID: String, expiresAt: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let payload = ChangePayload(
            productID: productID, state: type == .trialExpired ? "expired" : "trial", periodType: "trial",
            expiresAt: expiresAt, source: "trial")
        try await append(
            type, appID: appID, store: nil, originalTransactionID: nil, customerID: customerID, environment: nil,
            payload: payload, on: connection, logger: logger)
    }

    private static func append(
        _ type: SubscriptionEventType, appID: String, store: String?, originalTransactionID: String?,
        customerID: UUID?, environment: String?, payload: ChangePayload, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let document = String(decoding: try JSONBody.encode(payload), as: UTF8.self)
        let typeName: String = type.rawValue
        try await connection.run(
            Append.self,
            try PostgresBindings(appID, typeName, store, originalTransactionID, customerID, environment, document),
            logger: logger)
    }

    private enum Append: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.changes (
                app_id, type, store, original_transaction_id, customer_id, environment, payload)
            VALUES ($1::text, $2::text, $3::text, $4::text, $5::uuid, $6::text, $7::text::jsonb)
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
