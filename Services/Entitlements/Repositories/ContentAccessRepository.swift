import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// What the content service asks entitlements: may this customer have these products' content now.
protocol ContentAccessRepository: Sendable {
    /// One answer per product, in order.
    func access(_ request: ContentAccessRequest, appID: String) async throws -> [ContentAccess]
}

/// ``ContentAccessRepository`` on PostgreSQL.
///
/// Access is decided from the customer's info as the one customer info statement renders it (purchases, stacks,
/// subscriptions, products owned without a purchase, promotional grants, merged customers) and the catalog's
/// entitlement ids of each product. Binding a device to the purchase that grants a product counts it against the
/// app's device limit under the purchase's row lock, exactly as presenting the purchase would.
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
        return request.productIDs.map { product in
            Self.decide(product: product, info: info, granting: granting[product] ?? [])
        }
    }

    private static func decide(product: String, info: CustomerInfo, granting: [String]) -> Decision {
        let bought = info.nonSubscriptionPurchases.filter { $0.productID == product }
        // A non-renewing purchase grants only while its stack runs (the subscription entry below).
        if let live = bought.first(where: { $0.revokedAt == nil && $0.type != ProductType.nonRenewing.rawValue }) {
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
        if let grant = info.productGrants.first(where: { $0.productID == product }) {
            // A free claim keeps the name manifests have always given it.
            let source = grant.source == ProductGrantSource.free.rawValue ? "free_claim" : grant.source
            return Decision(access: ContentAccess(productID: product, state: .granted, source: source))
        }
        if let entitlement = granting.compactMap({ info.entitlements[$0] }).first(where: \.active) {
            return Decision(access: ContentAccess(productID: product, state: .granted, source: entitlement.source))
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
