import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Links the ids an app knows a customer by.
protocol AliasRepository: Sendable {
    /// Makes `alias` address the customer `appUserID` names (created on first sight) and answers that customer's
    /// info as committed.
    ///
    /// An unknown `alias` is added; an alias of the same customer changes nothing; an alias of another customer
    /// folds that customer into this one, unless both own something and the app's transfer policy keeps purchases
    /// with their owner: then ``EntitlementsError/aliasConflict(alias:policy:)`` with nothing written.
    func link(alias: String, to appUserID: String, appID: String) async throws -> CustomerInfoDocument
}

/// ``AliasRepository`` on PostgreSQL.
struct AliasPostgresRepository: AliasRepository {
    let client: PostgresClient
    let logger: Logger

    func link(alias: String, to appUserID: String, appID: String) async throws -> CustomerInfoDocument {
        let json = try await client.transaction(logger: logger) { connection in
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            for _ in 0..<CustomerRows.resolveAttempts {
                if let linked = try await attempt(
                    alias: alias, to: appUserID, appID: appID, policy: settings.transferPolicy, on: connection)
                {
                    return linked
                }
            }
            throw CustomerRowsError.keptMoving
        }
        return CustomerInfoDocument(json: json)
    }

    /// One try at linking; `nil` when a concurrent link moved either id before its lock was held (the caller tries
    /// again with what is now true).
    private func attempt(
        alias: String, to appUserID: String, appID: String, policy: TransferPolicy, on connection: PostgresConnection
    ) async throws -> String? {
        let survivor = try await CustomerRows.customerFor(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        let other = try await CustomerRows.find(appID: appID, appUserID: alias, on: connection, logger: logger)
        if other == survivor {
            return try await render(appID: appID, appUserID: appUserID, on: connection)
        }
        // The lock order of every change that touches purchases and customers: the purchases first (a merge moves
        // them; a refund's apply holds its purchase while it updates the owner), then both customers (in id order,
        // whoever links which way round), then both ids are read again.
        let customers = [survivor] + (other.map { [$0] } ?? [])
        if other != nil {
            try await CustomerRows.lockPurchases(ownedBy: customers, on: connection, logger: logger)
        }
        try await CustomerRows.lock(customers, on: connection, logger: logger)
        let survivorNow = try await CustomerRows.find(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        let otherNow = try await CustomerRows.find(appID: appID, appUserID: alias, on: connection, logger: logger)
        guard survivorNow == survivor, otherNow == other else { return nil }

        var payload = EventPayload()
        if let other {
            if policy != .transfer,
                try await CustomerMerge.ownsSomething(survivor, on: connection, logger: logger),
                try await CustomerMerge.ownsSomething(other, on: connection, logger: logger)
            {
                throw EntitlementsError.aliasConflict(alias: alias, policy: policy)
            }
            try await CustomerMerge.merge(other, into: survivor, appID: appID, on: connection, logger: logger)
            payload.reason = "merged"
        } else {
            guard try await insertAlias(alias, customerID: survivor, appID: appID, on: connection) else {
                return nil  // created meanwhile by another request: link it as an existing customer
            }
            payload.reason = "added"
        }
        payload.fromAppUserID = alias
        payload.toAppUserID = appUserID
        payload.aliases = try await CustomerRows.aliases(of: survivor, on: connection, logger: logger)
        try await EventOutbox.append(
            .alias, payload: payload, appID: appID, customerID: survivor, appUserID: appUserID, on: connection,
            logger: logger)
        try await CustomerRows.touch(survivor, on: connection, logger: logger)
        return try await render(appID: appID, appUserID: appUserID, on: connection)
    }

    /// Adds an id to a customer; `false` when the id was taken meanwhile.
    private func insertAlias(_ alias: String, customerID: UUID, appID: String, on connection: PostgresConnection)
        async throws -> Bool
    {
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO entitlements.aliases (app_id, app_user_id, customer_id)
            VALUES (\(appID), \(alias), \(customerID))
            ON CONFLICT (app_id, app_user_id) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        var inserted = false
        for try await _ in rows.decode(Int.self) { inserted = true }
        return inserted
    }

    private func render(appID: String, appUserID: String, on connection: PostgresConnection) async throws -> String {
        guard
            let (json, _) = try await CustomerInfoQuery.render(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
        else { throw EntitlementsError.customerNotFound(appUserID) }
        return json
    }
}
