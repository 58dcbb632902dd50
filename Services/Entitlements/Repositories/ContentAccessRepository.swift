import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// What the content service asks entitlements: may this customer have these products' content now, and the free
/// claims it records.
protocol ContentAccessRepository: Sendable {
    /// One answer per product, in order.
    func access(_ request: ContentAccessRequest, appID: String) async throws -> [ContentAccess]
    /// Records a claim of a free product (created on first sight of the customer); throws
    /// ``ContentClaimError`` when the catalog does not mark the product free.
    func claim(_ request: ContentClaimGrantRequest, appID: String) async throws -> ContentClaimGrantResponse
}

/// ``ContentAccessRepository`` on PostgreSQL.
///
/// Access is decided from the customer's info as the one customer info statement renders it (purchases, stacks,
/// subscriptions, promotional grants, merged customers), the catalog's entitlement ids of each product, and the
/// customer's free claims. Binding a device to the purchase that grants a product counts it against the app's
/// device limit under the purchase's row lock, exactly as presenting the purchase would.
struct ContentAccessPostgresRepository: ContentAccessRepository {
    let client: PostgresClient
    let logger: Logger

    func access(_ request: ContentAccessRequest, appID: String) async throws -> [ContentAccess] {
        let decisions = try await client.withConnection { connection in
            try await decide(request, appID: appID, on: connection)
        }
        guard request.bindDevice, let device = request.deviceID else { return decisions.map(\.access) }
        var answers: [ContentAccess] = []
        for decision in decisions {
            guard decision.access.state == .granted, let purchase = decision.purchase else {
                answers.append(decision.access)
                continue
            }
            let limit = try await bind(device: device, to: purchase, appID: appID)
            answers.append(
                limit.map {
                    ContentAccess(productID: decision.access.productID, state: .deviceLimitReached, deviceLimit: $0)
                }
                    ?? decision.access)
        }
        return answers
    }

    /// A product's access and the purchase that grants it, when one does.
    private struct Decision {
        var access: ContentAccess
        var purchase: (store: StorePlatform, originalTransactionID: String)?
    }

    private func decide(_ request: ContentAccessRequest, appID: String, on connection: PostgresConnection)
        async throws -> [Decision]
    {
        guard
            let rendered = try await CustomerInfoQuery.renderDocument(
                appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
        else {
            return request.productIDs.map { Decision(access: ContentAccess(productID: $0, state: .none)) }
        }
        let info = try JSONBody.decode(CustomerInfo.self, from: Data(rendered.json.utf8))
        let granting = try await catalogEntitlements(appID: appID, products: request.productIDs, on: connection)
        let claimed = try await claims(
            appID: appID, customerID: rendered.customerID, products: request.productIDs, on: connection)
        return request.productIDs.map { product in
            Self.decide(product: product, info: info, granting: granting[product] ?? [], claimed: claimed)
        }
    }

    private static func decide(product: String, info: CustomerInfo, granting: [String], claimed: Set<String>)
        -> Decision
    {
        let bought = info.nonSubscriptionPurchases.filter { $0.productID == product }
        // A non-renewing purchase grants only while its stack runs (the subscription entry below).
        if let live = bought.first(where: { $0.revokedAt == nil && $0.type != "non_renewing" }) {
            return Decision(
                access: ContentAccess(productID: product, state: .granted, source: "purchase"),
                purchase: (live.store, live.originalTransactionID))
        }
        let subscribed = info.subscriptions.filter { $0.productID == product }
        if let live = subscribed.first(where: \.active) {
            return Decision(
                access: ContentAccess(productID: product, state: .granted, source: "subscription"),
                purchase: (live.store, live.originalTransactionID))
        }
        if let entitlement = granting.compactMap({ info.entitlements[$0] }).first(where: \.active) {
            return Decision(access: ContentAccess(productID: product, state: .granted, source: entitlement.source))
        }
        if claimed.contains(product) {
            return Decision(access: ContentAccess(productID: product, state: .granted, source: "free_claim"))
        }
        let taken =
            !bought.isEmpty || subscribed.contains { $0.refundedAt != nil || $0.revokedAt != nil }
        return Decision(access: ContentAccess(productID: product, state: taken ? .revoked : .none))
    }

    /// Each product's entitlement ids in the catalog.
    private func catalogEntitlements(appID: String, products: [String], on connection: PostgresConnection)
        async throws -> [String: [String]]
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT product_id, coalesce(entitlements, '[]'::jsonb)::text FROM catalog.products_v1
            WHERE app_id = \(appID)::text AND product_id = ANY(\(products)::text[])
            """,
            logger: logger)
        var result: [String: [String]] = [:]
        for try await (product, json) in rows.decode((String, String).self) {
            result[product] = (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
        }
        return result
    }

    /// The products the customer (or a customer merged into it) claimed free.
    private func claims(appID: String, customerID: UUID, products: [String], on connection: PostgresConnection)
        async throws -> Set<String>
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT k.product_id FROM entitlements.content_claims k
            WHERE k.app_id = \(appID)::text AND k.revoked_at IS NULL AND k.product_id = ANY(\(products)::text[])
              AND k.customer_id IN (
                  SELECT \(customerID)::uuid
                  UNION ALL SELECT m.customer_id FROM entitlements.customers m WHERE m.merged_into = \(customerID)::uuid)
            """,
            logger: logger)
        var result: Set<String> = []
        for try await product in rows.decode(String.self) { result.insert(product) }
        return result
    }

    /// Counts `device` against the purchase's limit; the limit when the device is new and the limit is reached.
    private func bind(
        device: String, to purchase: (store: StorePlatform, originalTransactionID: String), appID: String
    ) async throws -> Int? {
        do {
            return try await bindOrThrow(device: device, to: purchase, appID: appID)
        } catch let error as DeviceLimit {
            return error.limit
        }
    }

    private func bindOrThrow(
        device: String, to purchase: (store: StorePlatform, originalTransactionID: String), appID: String
    ) async throws -> Int? {
        try await client.transaction(logger: logger) { connection in
            // The purchase's lock orders this against an apply or another download binding a device at once.
            guard
                let row = try await PurchaseRow.lock(
                    store: purchase.store, originalTransactionID: purchase.originalTransactionID, appID: appID,
                    on: connection, logger: logger)
            else { return nil }
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            let store: String = purchase.store.rawValue
            let rows = try await connection.run(
                BindDevice.self,
                try PostgresBindings(store, purchase.originalTransactionID, device, row.customerID),
                logger: logger
            ) { try $0.decode((Bool, Int64).self) }
            for (new, earlier) in rows where new && earlier >= settings.deviceLimit {
                // Throwing rolls the insert back: the device is not counted.
                throw DeviceLimit(limit: settings.deviceLimit)
            }
            return nil
        }
    }

    private struct DeviceLimit: Error { var limit: Int }

    func claim(_ request: ContentClaimGrantRequest, appID: String) async throws -> ContentClaimGrantResponse {
        try await client.transaction(logger: logger) { connection in
            let free = try await connection.checkedQuery(
                """
                SELECT free FROM catalog.products_v1
                WHERE app_id = \(appID)::text AND product_id = \(request.productID)::text
                """,
                logger: logger)
            var isFree: Bool?
            for try await value in free.decode(Bool.self) { isFree = value }
            guard let isFree else { throw ContentClaimError.productNotFound(request.productID) }
            guard isFree else { throw ContentClaimError.productNotFree(request.productID) }
            let customer = try await CustomerRows.customerFor(
                appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
            let rows = try await connection.checkedQuery(
                """
                WITH added AS (
                    INSERT INTO entitlements.content_claims (app_id, customer_id, product_id)
                    VALUES (\(appID)::text, \(customer)::uuid, \(request.productID)::text)
                    ON CONFLICT (customer_id, product_id) DO NOTHING
                    RETURNING claimed_at, true AS created
                )
                SELECT claimed_at, created FROM added
                UNION ALL
                SELECT claimed_at, false FROM entitlements.content_claims
                WHERE customer_id = \(customer)::uuid AND product_id = \(request.productID)::text
                  AND NOT EXISTS (SELECT 1 FROM added)
                """,
                logger: logger)
            for try await (claimedAt, created) in rows.decode((Date, Bool).self) {
                return ContentClaimGrantResponse(productID: request.productID, claimedAt: claimedAt, created: created)
            }
            throw ContentClaimError.productNotFound(request.productID)
        }
    }

    private enum BindDevice: PreparedSQL {
        // Counted before this statement's insert is visible: the devices that had used the purchase before.
        static let sql = """
            WITH used AS (
                INSERT INTO entitlements.purchase_devices AS d (store, original_transaction_id, device_id, customer_id)
                VALUES ($1::text, $2::text, $3::text, $4::uuid)
                ON CONFLICT (store, original_transaction_id, device_id) DO UPDATE SET last_seen = now()
                RETURNING (xmax = 0) AS new
            )
            SELECT used.new, (
                SELECT count(*) FROM entitlements.purchase_devices
                WHERE store = $1::text AND original_transaction_id = $2::text
            ) FROM used
            """
    }
}
