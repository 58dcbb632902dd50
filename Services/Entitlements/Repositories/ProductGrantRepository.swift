import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// How a customer came to own a product without a store purchase (customer info's `product_grants`).
enum ProductGrantSource: String, Sendable, CaseIterable {
    /// Claimed: the catalog marks the product free.
    case free
    /// The customer's app transaction shows a paid variant of the app that includes the product.
    case included
    /// The customer's app transaction shows they first got the app before a version the catalog names.
    case grandfathered
}

/// A product a customer owns without a store purchase.
struct ProductGrant: Sendable, Equatable {
    var productID: String
    var source: ProductGrantSource
    var grantedAt: Date
    /// `false` when the customer owned it before (nothing changed).
    var created: Bool
}

/// Free claims: one per customer and product; a second claim answers the first. (Products an app transaction
/// proves are worked out when customer info is rendered: ``AppTransactionRepository``.)
protocol ProductGrantRepository: Sendable {
    /// Grants the customer `appUserID` names (created on first sight) the product, when the catalog marks it free;
    /// throws ``ProductClaimError`` otherwise. With `renderCustomer`, also answers the customer's info after it.
    func claimFree(productID: String, appUserID: String, appID: String, renderCustomer: Bool) async throws
        -> (grant: ProductGrant, customer: String?)
}

/// ``ProductGrantRepository`` on PostgreSQL (`entitlements.content_claims`).
struct ProductGrantPostgresRepository: ProductGrantRepository {
    let client: PostgresClient
    let logger: Logger

    func claimFree(productID: String, appUserID: String, appID: String, renderCustomer: Bool) async throws
        -> (grant: ProductGrant, customer: String?)
    {
        try await client.transaction(logger: logger) { connection in
            // The catalog decides, never the client: only a product it marks free may be claimed.
            let free = try await connection.checkedQuery(
                """
                SELECT free FROM catalog.products_v1
                WHERE app_id = \(appID)::text AND product_id = \(productID)::text
                """,
                logger: logger)
            var isFree: Bool?
            for try await value in free.decode(Bool.self) { isFree = value }
            guard let isFree else { throw ProductClaimError.productNotFound(productID) }
            guard isFree else { throw ProductClaimError.productNotFree(productID) }
            guard
                let customerID = try await CustomerRows.lockCurrent(
                    appID: appID, appUserID: appUserID, create: true, on: connection, logger: logger)
            else { throw CustomerRowsError.notCreated }
            let grant = try await Self.insertClaim(
                productID: productID, appID: appID, customerID: customerID, on: connection, logger: logger)
            if grant.created { try await CustomerRows.touch(customerID, on: connection, logger: logger) }
            guard renderCustomer else { return (grant, nil) }
            guard
                let (json, _) = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: appUserID, on: connection, logger: logger)
            else { throw EntitlementsError.customerNotFound(appUserID) }
            return (grant, json)
        }
    }

    /// Records the customer's claim of the product, unless it (or a customer merged into it) claimed it before;
    /// answers the claim that stands. Called with the customer locked.
    static func insertClaim(
        productID: String, appID: String, customerID: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> ProductGrant {
        let rows = try await connection.checkedQuery(
            """
            WITH known AS (
                SELECT k.claimed_at FROM entitlements.content_claims k
                WHERE k.app_id = \(appID)::text AND k.product_id = \(productID)::text AND k.revoked_at IS NULL
                  AND k.customer_id IN (
                      SELECT \(customerID)::uuid
                      UNION ALL
                      SELECT m.customer_id FROM entitlements.customers m WHERE m.merged_into = \(customerID)::uuid)
                ORDER BY k.claimed_at LIMIT 1
            ), added AS (
                INSERT INTO entitlements.content_claims (app_id, customer_id, product_id)
                SELECT \(appID)::text, \(customerID)::uuid, \(productID)::text
                WHERE NOT EXISTS (SELECT 1 FROM known)
                ON CONFLICT (customer_id, product_id) DO NOTHING
                RETURNING claimed_at
            )
            SELECT claimed_at, true FROM added
            UNION ALL
            SELECT claimed_at, false FROM known
            """,
            logger: logger)
        for try await (grantedAt, created) in rows.decode((Date, Bool).self) {
            return ProductGrant(productID: productID, source: .free, grantedAt: grantedAt, created: created)
        }
        // Only a revoked grant of this customer and product is left: nothing new is granted over it.
        throw ProductClaimError.revoked(productID)
    }
}
