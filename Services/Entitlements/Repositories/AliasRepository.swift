import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// Links the ids an app knows a customer by.
protocol AliasRepository: Sendable {
    /// Makes `alias` address the customer `appUserID` names (created on first sight) and answers that customer's
    /// info as committed.
    ///
    /// An unknown `alias` is added; an alias of the same customer changes nothing; an alias of another customer
    /// folds that customer into this one, unless both own something and the app's transfer policy keeps purchases
    /// with their owner (``EntitlementsError/aliasConflict(alias:policy:)``), or the caller holds only the public key
    /// and the alias's customer owns something (``EntitlementsError/mergeNeedsSecretKey(alias:)``): the public key
    /// ships in every copy of the app, so it may fold in only an id that has nothing to lose. Nothing is written
    /// when it throws.
    func link(alias: String, to appUserID: String, appID: String, keyKind: APIKeyKind) async throws
        -> CustomerInfoDocument

    /// Takes every id the public key linked (and every link older than that record) out of the app's ids, into
    /// the suspended ids: what switching to the `signed` customer boundary does. Answers how many were suspended
    /// (0 when called again).
    func suspendPublicLinks(appID: String) async throws -> Int

    /// The app's suspended ids, oldest suspension first, each with an id of the customer it addressed.
    func suspended(appID: String) async throws -> [SuspendedAlias]

    /// Links a suspended id again to the customer it addressed (or the one that customer was merged into), as a link
    /// with the secret key would (``EntitlementsError/aliasConflict(alias:policy:)`` when the id names a customer
    /// of its own meanwhile and the transfer policy keeps purchases where they are), and answers that customer's
    /// info. ``EntitlementsError/suspendedAliasNotFound(_:)`` when the id is not suspended.
    func confirmSuspended(_ alias: String, appID: String) async throws -> CustomerInfoDocument
}

/// ``AliasRepository`` on PostgreSQL.
struct AliasPostgresRepository: AliasRepository {
    let client: PostgresClient
    let logger: Logger

    func link(alias: String, to appUserID: String, appID: String, keyKind: APIKeyKind) async throws
        -> CustomerInfoDocument
    {
        let json = try await client.transaction(logger: logger, attempts: 8) { connection in
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            return try await link(
                alias: alias, to: appUserID, appID: appID, policy: settings.transferPolicy, keyKind: keyKind,
                on: connection)
        }
        return CustomerInfoDocument(json: json)
    }

    /// Links in the caller's transaction (also ``confirmSuspended(_:appID:)``'s). When a concurrent link moved either id before the locks were held, the
    /// transaction starts again (``TransactionRestart``) with what is now true.
    func link(
        alias: String, to appUserID: String, appID: String, policy: TransferPolicy, keyKind: APIKeyKind,
        on connection: PostgresConnection
    ) async throws -> String {
        let survivor = try await CustomerRows.customerFor(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        let other = try await CustomerRows.find(appID: appID, appUserID: alias, on: connection, logger: logger)
        if other == survivor {
            return try await render(appID: appID, appUserID: appUserID, on: connection)
        }
        // One writer per customer (``CustomerLocks``): both customers' locks, taken together before anything is
        // read that decides, then both ids are read again.
        try await CustomerLocks.lock([survivor] + (other.map { [$0] } ?? []), on: connection, logger: logger)
        let survivorNow = try await CustomerRows.find(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        let otherNow = try await CustomerRows.find(appID: appID, appUserID: alias, on: connection, logger: logger)
        guard survivorNow == survivor, otherNow == other else {
            throw TransactionRestart(reason: "an id was linked elsewhere while the link waited")
        }

        var payload = EventPayload()
        if let other {
            let otherOwns = try await CustomerMerge.ownsSomething(other, appID: appID, on: connection, logger: logger)
            if keyKind != .secret, otherOwns {
                throw EntitlementsError.mergeNeedsSecretKey(alias: alias)
            }
            if policy != .transfer, otherOwns,
                try await CustomerMerge.ownsSomething(survivor, appID: appID, on: connection, logger: logger)
            {
                throw EntitlementsError.aliasConflict(alias: alias, policy: policy)
            }
            let folded = try await CustomerRows.aliases(of: other, on: connection, logger: logger)
            try await CustomerMerge.merge(other, into: survivor, appID: appID, on: connection, logger: logger)
            try await markLinked(folded, by: keyKind, appID: appID, on: connection)
            payload.reason = "merged"
        } else {
            guard try await insertAlias(alias, customerID: survivor, appID: appID, linkedBy: keyKind, on: connection)
            else {
                throw TransactionRestart(reason: "the id was created meanwhile; linking it as an existing customer")
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

    /// Adds an id to a customer, linked by `keyKind`; `false` when the id was taken meanwhile.
    func insertAlias(
        _ alias: String, customerID: UUID, appID: String, linkedBy keyKind: APIKeyKind,
        on connection: PostgresConnection
    ) async throws -> Bool {
        let rows = try await connection.checkedQuery(
            """
            INSERT INTO entitlements.aliases (app_id, app_user_id, customer_id, linked_by)
            VALUES (\(appID), \(alias), \(customerID), \(keyKind.rawValue))
            ON CONFLICT (app_id, app_user_id) DO NOTHING
            RETURNING 1
            """,
            logger: logger
        )
        var inserted = false
        for try await _ in rows.decode(Int.self) { inserted = true }
        return inserted
    }

    /// Records that `keyKind` linked `ids` (the ids of a customer a link folded into another).
    private func markLinked(_ ids: [String], by keyKind: APIKeyKind, appID: String, on connection: PostgresConnection)
        async throws
    {
        try await connection.run(
            """
            UPDATE entitlements.aliases SET linked_by = \(keyKind.rawValue)
            WHERE app_id = \(appID) AND app_user_id = ANY(\(ids))
            """,
            logger: logger)
    }

    func render(appID: String, appUserID: String, on connection: PostgresConnection) async throws -> String {
        guard
            let (json, _) = try await CustomerInfoQuery.render(
                appID: appID, appUserID: appUserID, on: connection, logger: logger)
        else { throw EntitlementsError.customerNotFound(appUserID) }
        return json
    }
}
