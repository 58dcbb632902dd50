import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// A promotional grant to make.
struct NewPromotionalGrant: Sendable {
    var entitlementID: String
    var expiresAt: Date
    var note: String?
}

/// A grant as rendered JSON, with the customer's info after it was made.
struct GrantDocument: Sendable {
    /// The ``PromotionalGrantRows`` rendering of the grant.
    var grant: String
    var customer: String
}

/// Entitlements the developer grants and revokes by hand.
protocol PromotionalGrantRepository: Sendable {
    /// Grants an entitlement from now until `grant.expiresAt` to the customer `appUserID` names (created on first
    /// sight).
    func grant(_ grant: NewPromotionalGrant, appUserID: String, appID: String) async throws -> GrantDocument

    /// Revokes one of the customer's grants now and answers the customer's info; revoking a revoked grant again
    /// changes nothing. Throws ``EntitlementsError/grantNotFound(_:)`` when the customer has no such grant.
    func revoke(grantID: UUID, appUserID: String, appID: String) async throws -> CustomerInfoDocument
}

/// ``PromotionalGrantRepository`` on PostgreSQL.
struct PromotionalGrantPostgresRepository: PromotionalGrantRepository {
    let client: PostgresClient
    let logger: Logger

    func grant(_ grant: NewPromotionalGrant, appUserID: String, appID: String) async throws -> GrantDocument {
        try await client.transaction(logger: logger) { connection in
            guard
                let customerID = try await CustomerRows.lockCurrent(
                    appID: appID, appUserID: appUserID, create: true, on: connection, logger: logger)
            else { throw CustomerRowsError.notCreated }
            let (grantID, json) = try await PromotionalGrantRows.insert(
                grant, appID: appID, customerID: customerID, on: connection, logger: logger)
            var payload = EventPayload()
            payload.entitlementID = grant.entitlementID
            payload.expiresAt = grant.expiresAt.formatted(.iso8601)
            payload.grantID = grantID.uuidString.lowercased()
            payload.source = "promotional"
            try await EventOutbox.append(
                .promotionalGrant, payload: payload, appID: appID, customerID: customerID, appUserID: appUserID,
                on: connection, logger: logger)
            try await CustomerRows.touch(customerID, on: connection, logger: logger)
            let info = try await render(appID: appID, appUserID: appUserID, on: connection)
            return GrantDocument(grant: json, customer: info)
        }
    }

    func revoke(grantID: UUID, appUserID: String, appID: String) async throws -> CustomerInfoDocument {
        let json = try await client.transaction(logger: logger) { connection in
            guard
                let customerID = try await CustomerRows.lockCurrent(
                    appID: appID, appUserID: appUserID, create: false, on: connection, logger: logger)
            else { throw EntitlementsError.grantNotFound(grantID.uuidString.lowercased()) }
            switch try await PromotionalGrantRows.revoke(
                grantID, appID: appID, customerID: customerID, on: connection, logger: logger)
            {
            case .notFound:
                throw EntitlementsError.grantNotFound(grantID.uuidString.lowercased())
            case .alreadyRevoked:
                break
            case .revoked(let entitlementID):
                var payload = EventPayload()
                payload.entitlementID = entitlementID
                payload.grantID = grantID.uuidString.lowercased()
                payload.source = "promotional"
                try await EventOutbox.append(
                    .promotionalGrantRevoked, payload: payload, appID: appID, customerID: customerID,
                    appUserID: appUserID, on: connection, logger: logger)
                try await CustomerRows.touch(customerID, on: connection, logger: logger)
            }
            return try await render(appID: appID, appUserID: appUserID, on: connection)
        }
        return CustomerInfoDocument(json: json)
    }

    private func render(appID: String, appUserID: String, on connection: PostgresConnection) async throws -> String {
        guard
            let (json, _) = try await CustomerInfoQuery.render(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
        else { throw EntitlementsError.customerNotFound(appUserID) }
        return json
    }
}
