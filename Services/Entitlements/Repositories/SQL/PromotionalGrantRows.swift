import Foundation
import Logging
import PostgresNIO

/// The statements about promotional grants.
enum PromotionalGrantRows {
    /// What revoking found.
    enum Revocation: Sendable, Equatable {
        /// The customer has no such grant.
        case notFound
        /// Revoked before; nothing changed.
        case alreadyRevoked
        /// Revoked now; the grant's entitlement.
        case revoked(entitlementID: String)
    }

    /// The JSON of the grant `g`, with its `state` now: `revoked`, `expired` or `active`.
    static let json = """
        jsonb_build_object(
            'grant_id', g.grant_id, 'entitlement_id', g.entitlement_id,
            'starts_at', entitlements.iso(g.starts_at), 'expires_at', entitlements.iso(g.expires_at),
            'revoked_at', entitlements.iso(g.revoked_at), 'note', g.note,
            'created_at', entitlements.iso(g.created_at),
            'state', CASE WHEN g.revoked_at IS NOT NULL THEN 'revoked'
                          WHEN g.expires_at <= now() THEN 'expired'
                          ELSE 'active' END)
        """

    /// Inserts a grant starting now; its id and JSON.
    static func insert(
        _ grant: NewPromotionalGrant, appID: String, customerID: UUID, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> (UUID, String) {
        let entitlementID: String = grant.entitlementID
        let expiresAt: Date = grant.expiresAt
        let note: String? = grant.note
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO entitlements.promotional_grants AS g (app_id, customer_id, entitlement_id, expires_at, note)
            VALUES (\(appID), \(customerID), \(entitlementID), \(expiresAt), \(note))
            RETURNING g.grant_id, \(unescaped: json)::text
            """,
            logger: logger
        )
        var inserted: (UUID, String)?
        for try await row in rows.decode((UUID, String).self) { inserted = row }
        guard let inserted else { throw PromotionalGrantRowsError.notInserted }
        return inserted
    }

    /// Revokes a grant of `customerID` now, unless it was revoked before.
    static func revoke(
        _ grantID: UUID, appID: String, customerID: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> Revocation {
        let rows = try await connection.checkedQuery(
            """
            WITH target AS (
                SELECT grant_id, entitlement_id, revoked_at FROM entitlements.promotional_grants
                WHERE grant_id = \(grantID) AND app_id = \(appID) AND customer_id = \(customerID)
                FOR UPDATE
            ), revoked AS (
                UPDATE entitlements.promotional_grants g SET revoked_at = now()
                FROM target WHERE g.grant_id = target.grant_id AND target.revoked_at IS NULL
                RETURNING g.grant_id
            )
            SELECT target.entitlement_id, EXISTS (SELECT 1 FROM revoked) FROM target
            """,
            logger: logger
        )
        var result: Revocation = .notFound
        for try await (entitlementID, revokedNow) in rows.decode((String, Bool).self) {
            result = revokedNow ? .revoked(entitlementID: entitlementID) : .alreadyRevoked
        }
        return result
    }
}

/// An insert with `RETURNING` returned no row: cannot happen short of a broken schema.
struct PromotionalGrantRowsError: Error {
    static let notInserted = PromotionalGrantRowsError()
}
