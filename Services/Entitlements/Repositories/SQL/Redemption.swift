import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// The `entitlements.redemption_codes` statements, in the caller's transaction.
enum RedemptionRows {
    /// A code's row as locked.
    struct Row: Sendable {
        var issuedTo: String
        var expired: Bool
        var redeemedBy: UUID?
    }

    /// Locks the app's row of `code` (`FOR UPDATE`: one redemption of a code at a time); `nil` when the app has none.
    static func lock(_ code: RedemptionCode, appID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Row?
    {
        let rows = try await connection.checkedQuery(
            """
            SELECT issued_to, expires_at <= now(), redeemed_by FROM entitlements.redemption_codes
            WHERE app_id = \(appID) AND code_hash = \(code.hash)
            FOR UPDATE
            """,
            logger: logger
        )
        var found: Row?
        for try await (issuedTo, expired, redeemedBy) in rows.decode((String, Bool, UUID?).self) {
            found = Row(issuedTo: issuedTo, expired: expired, redeemedBy: redeemedBy)
        }
        return found
    }

    /// The customer `customerID` is now: itself, or the one it was merged into.
    static func current(_ customerID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> UUID {
        let rows = try await connection.checkedQuery(
            """
            SELECT coalesce(merged_into, customer_id) FROM entitlements.customers WHERE customer_id = \(customerID)
            """,
            logger: logger
        )
        var found = customerID
        for try await id in rows.decode(UUID.self) { found = id }
        return found
    }

    /// Records the redemption: the code cannot be redeemed again.
    static func markRedeemed(
        _ code: RedemptionCode, appID: String, by customerID: UUID, appUserID: String, moved: Int,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.run(
            """
            UPDATE entitlements.redemption_codes
            SET redeemed_at = now(), redeemed_by = \(customerID), redeemed_by_app_user_id = \(appUserID),
                moved = \(moved)
            WHERE app_id = \(appID) AND code_hash = \(code.hash)
            """,
            logger: logger)
    }
}

/// Moves every web purchase (store `stripe`) of one customer to another, in the caller's transaction, which holds
/// both customers' locks: the purchases (with their device bindings), the units of consumables among them that are
/// still unspent (a pair of ledger lines, `transfer_out` and `transfer_in`, so each balance stays the sum of its
/// lines), and a `transfer` event for each purchase on both customers (`reason` `redemption`).
///
/// The purchases record the customer they left (`previous_owners`): store news about them later (a renewal still
/// naming the web visitor's id) applies to their new owner and never moves them back (``PurchaseApplier``).
struct RedemptionMove {
    let appID: String
    let source: UUID
    let sourceUserID: String
    let target: UUID
    let targetUserID: String
    let logger: Logger

    /// A moved purchase.
    private struct Moved {
        var originalTransactionID: String
        var storeProductID: String
        var productID: String?
        /// `nil` for a product the catalog did not know when it was bought (`unknown`).
        var productType: ProductType?
        var environment: String
        var credited: Int64?
    }

    /// Moves them and answers how many purchases moved.
    func run(on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.checkedQuery(
            """
            UPDATE entitlements.purchases
            SET customer_id = \(target), previous_owners = array_append(previous_owners, \(source)), updated_at = now()
            WHERE app_id = \(appID) AND customer_id = \(source) AND store = 'stripe'
            RETURNING original_transaction_id, store_product_id, product_id, product_type, environment, credited
            """,
            logger: logger
        )
        var moved: [Moved] = []
        for try await (original, storeProduct, product, type, environment, credited) in rows.decode(
            (String, String, String?, String, String, Int64?).self)
        {
            moved.append(
                Moved(
                    originalTransactionID: original, storeProductID: storeProduct, productID: product,
                    productType: ProductType(rawValue: type), environment: environment, credited: credited))
        }
        guard !moved.isEmpty else { return 0 }
        moved.sort { $0.originalTransactionID < $1.originalTransactionID }
        let originals = moved.map(\.originalTransactionID)
        try await connection.run(
            """
            UPDATE entitlements.purchase_devices SET customer_id = \(target)
            WHERE store = 'stripe' AND original_transaction_id = ANY(\(originals)) AND customer_id = \(source)
            """,
            logger: logger)
        try await moveUnits(of: moved, on: connection)
        for purchase in moved {
            let payload = EventPayload(
                productID: purchase.productID, storeProductID: purchase.storeProductID, store: "stripe",
                environment: purchase.environment, originalTransactionID: purchase.originalTransactionID,
                reason: "redemption", fromAppUserID: sourceUserID, toAppUserID: targetUserID)
            for (customer, user) in [(source, sourceUserID), (target, targetUserID)] {
                try await EventOutbox.append(
                    .transfer, payload: payload, appID: appID, customerID: customer, appUserID: user, on: connection,
                    logger: logger)
            }
        }
        try await CustomerRows.touch(source, on: connection, logger: logger)
        try await CustomerRows.touch(target, on: connection, logger: logger)
        return moved.count
    }

    /// Moves the units the moved consumables credited, at most what the source still holds of each product.
    private func moveUnits(of moved: [Moved], on connection: PostgresConnection) async throws {
        var credited: [String: Int64] = [:]
        for purchase in moved where purchase.productType == .consumable {
            guard let product = purchase.productID, let units = purchase.credited, units > 0 else { continue }
            credited[product, default: 0] += units
        }
        for (product, units) in credited.sorted(by: { $0.key < $1.key }) {
            let balance = try await Ledger.balance(
                customerID: source, productID: product, on: connection, logger: logger)
            let moving = min(units, balance)
            guard moving > 0 else { continue }
            try await Ledger.post(
                -moving, reason: .transferOut, appID: appID, customerID: source, productID: product, store: "stripe",
                on: connection, logger: logger)
            try await Ledger.post(
                moving, reason: .transferIn, appID: appID, customerID: target, productID: product, store: "stripe",
                on: connection, logger: logger)
        }
    }
}
