import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// A redemption code as issued: shown once, stored only as its hash.
struct IssuedRedemptionCode: Sendable, Encodable {
    /// The code, in groups of five (`ABCDE-FGHJK-MNPQR-STUVW`).
    var code: String
    var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case code
        case expiresAt = "expires_at"
    }
}

/// One-time codes that move a web buyer's purchases (store `stripe`) to the customer who redeems them.
///
/// The customer boundary: a code is the proof that its issuer agrees to give the purchases away, so whoever redeems
/// it receives them, and nothing else of the issuer (no id is linked: the web visitor's id never comes to address the
/// redeemer's account, and the redeemer's ids never reach the visitor's).
protocol RedemptionRepository: Sendable {
    /// Issues a code for `appUserID`'s web purchases, valid for `lifetime`.
    func issue(appUserID: String, appID: String, lifetime: Duration) async throws -> IssuedRedemptionCode

    /// Moves the web purchases of the code's id to `appUserID`'s customer (created on first sight), once, and answers
    /// that customer's info as committed. The same customer redeeming again gets the same answer (nothing moves);
    /// ``EntitlementsError/redemptionCodeUsed`` for another customer, ``EntitlementsError/redemptionCodeNotFound``
    /// for a code of no (or another) app, ``EntitlementsError/redemptionCodeExpired``,
    /// ``EntitlementsError/nothingToRedeem`` (the code stays valid). Nothing is written when it throws.
    func redeem(_ code: RedemptionCode, appUserID: String, appID: String) async throws -> CustomerInfoDocument
}

/// ``RedemptionRepository`` on PostgreSQL.
struct RedemptionPostgresRepository: RedemptionRepository {
    let client: PostgresClient
    let logger: Logger
    /// Renders the customer info (the alias repository's rendering, one way for both).
    var aliases: AliasPostgresRepository { AliasPostgresRepository(client: client, logger: logger) }

    func issue(appUserID: String, appID: String, lifetime: Duration) async throws -> IssuedRedemptionCode {
        let code = RedemptionCode.random()
        let seconds = Double(lifetime.components.seconds)
        let expiresAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.down))
        try await client.withConnection { connection in
            try await connection.run(
                """
                INSERT INTO entitlements.redemption_codes (app_id, code_hash, issued_to, expires_at)
                VALUES (\(appID), \(code.hash), \(appUserID), \(expiresAt))
                """,
                logger: logger)
        }
        return IssuedRedemptionCode(code: code.display, expiresAt: expiresAt)
    }

    func redeem(_ code: RedemptionCode, appUserID: String, appID: String) async throws -> CustomerInfoDocument {
        let json = try await client.transaction(logger: logger, attempts: 8) { connection in
            try await redeem(code, appUserID: appUserID, appID: appID, on: connection)
        }
        return CustomerInfoDocument(json: json)
    }

    /// The redemption in the caller's transaction. The code's row is locked first (concurrent redemptions of one code
    /// wait there, and the second finds it redeemed), then both customers' locks (``CustomerLocks``).
    private func redeem(_ code: RedemptionCode, appUserID: String, appID: String, on connection: PostgresConnection)
        async throws -> String
    {
        guard let row = try await RedemptionRows.lock(code, appID: appID, on: connection, logger: logger) else {
            throw EntitlementsError.redemptionCodeNotFound
        }
        let redeemer = try await CustomerRows.customerFor(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        if let redeemedBy = row.redeemedBy {
            // Once: only its redeemer (or the customer it was merged into since) hears the answer again.
            guard try await RedemptionRows.current(redeemedBy, on: connection, logger: logger) == redeemer else {
                throw EntitlementsError.redemptionCodeUsed
            }
            return try await aliases.render(appID: appID, appUserID: appUserID, on: connection)
        }
        if row.expired { throw EntitlementsError.redemptionCodeExpired }
        guard
            let source = try await CustomerRows.find(
                appID: appID, appUserID: row.issuedTo, on: connection, logger: logger)
        else { throw EntitlementsError.nothingToRedeem }
        try await CustomerLocks.lock(Set([source, redeemer]), on: connection, logger: logger)
        let sourceNow = try await CustomerRows.find(
            appID: appID, appUserID: row.issuedTo, on: connection, logger: logger)
        let redeemerNow = try await CustomerRows.find(
            appID: appID, appUserID: appUserID, on: connection, logger: logger)
        guard sourceNow == source, redeemerNow == redeemer else {
            throw TransactionRestart(reason: "an id was linked elsewhere while the redemption waited")
        }
        var moved = 0
        if source != redeemer {
            moved = try await RedemptionMove(
                appID: appID, source: source, sourceUserID: row.issuedTo, target: redeemer, targetUserID: appUserID,
                logger: logger
            ).run(on: connection)
            guard moved > 0 else { throw EntitlementsError.nothingToRedeem }
        }
        try await RedemptionRows.markRedeemed(
            code, appID: appID, by: redeemer, appUserID: appUserID, moved: moved, on: connection, logger: logger)
        return try await aliases.render(appID: appID, appUserID: appUserID, on: connection)
    }
}
