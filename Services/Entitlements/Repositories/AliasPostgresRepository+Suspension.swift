import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

extension AliasPostgresRepository {
    func suspendPublicLinks(appID: String) async throws -> Int {
        // One statement: an id is either still linked or suspended, never both nor neither. The trigger on
        // `aliases` forgets the stored documents of the customers whose ids left and notifies the replicas.
        let rows = try await client.query(
            """
            WITH moved AS (
                DELETE FROM entitlements.aliases
                WHERE app_id = \(appID) AND linked_by IN ('public', 'unknown')
                RETURNING app_id, app_user_id, customer_id, linked_by
            )
            INSERT INTO entitlements.suspended_aliases (app_id, app_user_id, customer_id, linked_by)
            SELECT app_id, app_user_id, customer_id, linked_by FROM moved
            ON CONFLICT (app_id, app_user_id) DO UPDATE
                SET customer_id = excluded.customer_id, linked_by = excluded.linked_by, suspended_at = now()
            RETURNING 1
            """,
            logger: logger)
        var count = 0
        for try await _ in rows.decode(Int.self) { count += 1 }
        return count
    }

    func suspended(appID: String) async throws -> [SuspendedAlias] {
        let rows = try await client.query(
            """
            SELECT s.app_user_id, s.linked_by, s.suspended_at,
                   (SELECT a.app_user_id FROM entitlements.aliases a
                    WHERE a.customer_id = coalesce(c.merged_into, s.customer_id)
                    ORDER BY a.linked_by IS NOT NULL, a.app_user_id LIMIT 1)
            FROM entitlements.suspended_aliases s
            LEFT JOIN entitlements.customers c ON c.customer_id = s.customer_id
            WHERE s.app_id = \(appID)
            ORDER BY s.suspended_at, s.app_user_id
            """,
            logger: logger)
        var found: [SuspendedAlias] = []
        for try await (id, linkedBy, suspendedAt, customer) in rows.decode((String, String, Date, String?).self) {
            found.append(
                SuspendedAlias(appUserID: id, linkedBy: linkedBy, suspendedAt: suspendedAt, customerAppUserID: customer)
            )
        }
        return found
    }

    func confirmSuspended(_ alias: String, appID: String) async throws -> CustomerInfoDocument {
        let json = try await client.transaction(logger: logger, attempts: 8) { connection in
            let rows = try await connection.checkedQuery(
                """
                DELETE FROM entitlements.suspended_aliases s
                WHERE s.app_id = \(appID) AND s.app_user_id = \(alias)
                RETURNING (SELECT coalesce(c.merged_into, c.customer_id) FROM entitlements.customers c
                           WHERE c.customer_id = s.customer_id)
                """,
                logger: logger)
            var target: UUID??
            for try await customer in rows.decode(UUID?.self) { target = .some(customer) }
            guard case .some(.some(let customer)) = target else {
                throw EntitlementsError.suspendedAliasNotFound(alias)
            }
            let ids = try await CustomerRows.aliases(of: customer, on: connection, logger: logger)
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            if let owner = ids.first {
                // The customer still has an id: link as the secret key would, with the app's transfer policy.
                return try await link(
                    alias: alias, to: owner, appID: appID, policy: settings.transferPolicy, keyKind: .secret,
                    on: connection)
            }
            // Every id of the customer was suspended: this one addresses it again.
            guard
                try await insertAlias(alias, customerID: customer, appID: appID, linkedBy: .secret, on: connection)
            else {
                throw TransactionRestart(reason: "the id was created meanwhile; linking it as an existing customer")
            }
            return try await render(appID: appID, appUserID: alias, on: connection)
        }
        return CustomerInfoDocument(json: json)
    }
}
