import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperModels

/// ``ConsoleUserRepository`` on PostgreSQL. Each change is one statement, so replicas racing on the same user agree.
struct ConsoleUserPostgresRepository: ConsoleUserRepository {
    let client: PostgresClient
    let logger: Logger

    /// The columns a ``ConsoleUser`` is read from (`u` being `gateway.console_users`).
    private static let userColumns = """
        u.user_id, u.email, u.role, u.password_hash IS NOT NULL, u.totp_sealed IS NOT NULL, u.created_at
        """

    private typealias UserRow = (String, String, String, Bool, Bool, Date)

    private static func user(_ row: UserRow) -> ConsoleUser {
        ConsoleUser(
            userID: row.0, email: row.1, role: ConsoleRole(rawValue: row.2) ?? .viewer,
            status: row.3 ? "active" : "invited", totpEnabled: row.4, createdAt: row.5)
    }

    private func users(_ query: PostgresQuery) async throws -> [ConsoleUser] {
        var users: [ConsoleUser] = []
        for try await row in try await client.query(query, logger: logger).decode(UserRow.self) {
            users.append(Self.user(row))
        }
        return users
    }

    func invite(appID: String, email: String, role: ConsoleRole, tokenHash: [UInt8], lifetime: Duration)
        async throws -> (ConsoleUser, expiresAt: Date)
    {
        let userID = RandomToken.identifier(prefix: "usr", length: 16)
        let seconds = Double(lifetime.components.seconds)
        // A user not active yet is invited again: its role set, its earlier invitations replaced.
        let rows = try await client.query(
            """
            WITH u AS (
                INSERT INTO gateway.console_users (user_id, app_id, email, role)
                SELECT \(userID), app_id, \(email), \(role.rawValue) FROM gateway.apps WHERE app_id = \(appID)
                ON CONFLICT (app_id, email) DO UPDATE SET role = excluded.role
                    WHERE gateway.console_users.password_hash IS NULL
                RETURNING *
            ), gone AS (
                DELETE FROM gateway.console_invitations i USING u WHERE i.user_id = u.user_id
            ), invitation AS (
                INSERT INTO gateway.console_invitations (token_hash, user_id, expires_at)
                SELECT \(ByteBuffer(bytes: tokenHash)), u.user_id, now() + make_interval(secs => \(seconds)) FROM u
                RETURNING expires_at
            )
            SELECT \(unescaped: Self.userColumns), (SELECT expires_at FROM invitation) FROM u
            """,
            logger: logger)
        for try await row in rows.decode((String, String, String, Bool, Bool, Date, Date).self) {
            return (Self.user((row.0, row.1, row.2, row.3, row.4, row.5)), row.6)
        }
        let apps = try await client.query(
            "SELECT 1 FROM gateway.apps WHERE app_id = \(appID)", logger: logger)
        for try await _ in apps { throw ConsoleTeamError.userExists(email) }
        throw GatewayError.appNotFound(appID)
    }

    func list(appID: String) async throws -> [ConsoleUser] {
        try await users(
            "SELECT \(unescaped: Self.userColumns) FROM gateway.console_users u WHERE u.app_id = \(appID) ORDER BY u.email"
        )
    }

    func setRole(appID: String, userID: String, role: ConsoleRole) async throws -> ConsoleUser? {
        try await users(
            """
            WITH u AS (
                UPDATE gateway.console_users SET role = \(role.rawValue)
                WHERE app_id = \(appID) AND user_id = \(userID) RETURNING *
            ), ended AS (
                DELETE FROM gateway.console_sessions s USING u WHERE s.user_id = u.user_id
            )
            SELECT \(unescaped: Self.userColumns) FROM u
            """
        ).first
    }

    func remove(appID: String, userID: String) async throws -> Bool {
        // Its sessions and invitations go with it (ON DELETE CASCADE).
        let rows = try await client.query(
            "DELETE FROM gateway.console_users WHERE app_id = \(appID) AND user_id = \(userID) RETURNING 1",
            logger: logger)
        for try await _ in rows { return true }
        return false
    }

    func resetTOTP(appID: String, userID: String) async throws -> ConsoleUser? {
        try await users(
            """
            WITH u AS (
                UPDATE gateway.console_users
                SET totp_sealed = NULL, totp_pending_sealed = NULL, totp_sealing_key_id = NULL, totp_last_step = NULL,
                    totp_attempts = 0, totp_locked_until = NULL
                WHERE app_id = \(appID) AND user_id = \(userID) RETURNING *
            ), ended AS (
                DELETE FROM gateway.console_sessions s USING u WHERE s.user_id = u.user_id
            )
            SELECT \(unescaped: Self.userColumns) FROM u
            """
        ).first
    }

    func acceptInvitation(tokenHash: [UInt8], passwordHash: String) async throws -> (appID: String, email: String)? {
        let rows = try await client.query(
            """
            WITH used AS (
                UPDATE gateway.console_invitations SET used_at = now()
                WHERE token_hash = \(ByteBuffer(bytes: tokenHash)) AND used_at IS NULL AND expires_at > now()
                RETURNING user_id
            )
            UPDATE gateway.console_users u
            SET password_hash = \(passwordHash), failed_sign_ins = 0, locked_until = NULL
            FROM used WHERE u.user_id = used.user_id
            RETURNING u.app_id, u.email
            """,
            logger: logger)
        for try await (appID, email) in rows.decode((String, String).self) { return (appID, email) }
        return nil
    }

    func credentials(appID: String, email: String) async throws -> StoredUserCredentials? {
        let rows = try await client.query(
            """
            SELECT user_id, role, password_hash, totp_sealed, totp_sealing_key_id, totp_last_step,
                   CASE WHEN locked_until > now()
                        THEN ceil(extract(epoch FROM locked_until - now()))::int END
            FROM gateway.console_users WHERE app_id = \(appID) AND email = \(email)
            """,
            logger: logger)
        for try await row in rows.decode((String, String, String?, ByteBuffer?, String?, Int64?, Int?).self) {
            var totp: SealedTOTP?
            if var sealed = row.3, let keyID = row.4 {
                totp = SealedTOTP(sealed: sealed.readBytes(length: sealed.readableBytes) ?? [], keyID: keyID)
            }
            return StoredUserCredentials(
                userID: row.0, role: ConsoleRole(rawValue: row.1) ?? .viewer, passwordHash: row.2, totp: totp,
                totpLastStep: row.5, lockedForSeconds: row.6)
        }
        return nil
    }

    func recordFailure(userID: String, limit: Int, lockout: Duration) async throws {
        try await client.query(
            """
            UPDATE gateway.console_users
            SET failed_sign_ins = CASE WHEN failed_sign_ins + 1 >= \(limit) THEN 0 ELSE failed_sign_ins + 1 END,
                locked_until = CASE WHEN failed_sign_ins + 1 >= \(limit)
                                    THEN now() + make_interval(secs => \(Double(lockout.components.seconds)))
                                    ELSE locked_until END
            WHERE user_id = \(userID)
            """,
            logger: logger)
    }

    func recordSuccess(userID: String, totpStep: Int64?, passwordHash: String?) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE gateway.console_users
            SET failed_sign_ins = 0, locked_until = NULL,
                totp_last_step = coalesce(\(totpStep)::bigint, totp_last_step),
                password_hash = coalesce(\(passwordHash)::text, password_hash)
            WHERE user_id = \(userID)
              AND (\(totpStep)::bigint IS NULL OR totp_last_step IS NULL OR totp_last_step < \(totpStep)::bigint)
            RETURNING 1
            """,
            logger: logger)
        for try await _ in rows { return true }
        return false
    }

    func beginTOTP(userID: String, sealed: SealedTOTP) async throws {
        let rows = try await client.query(
            """
            WITH old AS (
                SELECT user_id, totp_sealed IS NOT NULL AS enabled,
                       CASE WHEN totp_locked_until > now()
                            THEN ceil(extract(epoch FROM totp_locked_until - now()))::int END AS locked_for
                FROM gateway.console_users WHERE user_id = \(userID)
            ), begun AS (
                UPDATE gateway.console_users u
                SET totp_pending_sealed = \(ByteBuffer(bytes: sealed.sealed)), totp_sealing_key_id = \(sealed.keyID)
                FROM old WHERE u.user_id = old.user_id AND old.locked_for IS NULL AND NOT old.enabled
            )
            SELECT enabled, locked_for FROM old
            """,
            logger: logger)
        for try await (enabled, lockedFor) in rows.decode((Bool, Int?).self) {
            if let lockedFor { throw ConsoleTeamError.totpLocked(retryAfterSeconds: lockedFor) }
            if enabled { throw ConsoleTeamError.totpEnabled }
        }
    }

    func reserveTOTPAttempt(userID: String, limit: Int, lockout: Duration) async throws -> Int? {
        // The row is locked first, so concurrent tries count one after another and never past the limit.
        let rows = try await client.query(
            """
            WITH old AS (
                SELECT user_id, totp_attempts AS tries, coalesce(totp_locked_until > now(), false) AS locked,
                       ceil(extract(epoch FROM totp_locked_until - now()))::int AS locked_for
                FROM gateway.console_users WHERE user_id = \(userID) FOR UPDATE
            )
            UPDATE gateway.console_users u
            SET totp_attempts = CASE WHEN old.locked THEN u.totp_attempts
                                     WHEN old.tries + 1 >= \(limit) THEN 0 ELSE old.tries + 1 END,
                totp_locked_until = CASE WHEN old.locked THEN u.totp_locked_until
                                         WHEN old.tries + 1 >= \(limit)
                                         THEN now() + make_interval(secs => \(Double(lockout.components.seconds)))
                                         ELSE NULL END
            FROM old WHERE u.user_id = old.user_id
            RETURNING CASE WHEN old.locked THEN greatest(old.locked_for, 1) END
            """,
            logger: logger)
        for try await lockedFor in rows.decode(Int?.self) { return lockedFor }
        return nil
    }

    func pendingTOTP(userID: String) async throws -> SealedTOTP? {
        let rows = try await client.query(
            """
            SELECT totp_pending_sealed, totp_sealing_key_id FROM gateway.console_users
            WHERE user_id = \(userID) AND totp_pending_sealed IS NOT NULL AND totp_sealed IS NULL
            """,
            logger: logger)
        for try await (sealed, keyID) in rows.decode((ByteBuffer, String).self) {
            var buffer = sealed
            return SealedTOTP(sealed: buffer.readBytes(length: buffer.readableBytes) ?? [], keyID: keyID)
        }
        return nil
    }

    func confirmTOTP(userID: String, step: Int64) async throws -> Bool {
        let rows = try await client.query(
            """
            UPDATE gateway.console_users
            SET totp_sealed = totp_pending_sealed, totp_pending_sealed = NULL, totp_last_step = \(step),
                totp_attempts = 0, totp_locked_until = NULL
            WHERE user_id = \(userID) AND totp_pending_sealed IS NOT NULL AND totp_sealed IS NULL
            RETURNING 1
            """,
            logger: logger)
        for try await _ in rows { return true }
        return false
    }
}
