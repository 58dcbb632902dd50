import Foundation
import Logging
import PostgresNIO
import ShopkeeperCore

/// Where store credentials are kept, sealed.
protocol CredentialsRepository: Sendable {
    /// The app's Apple credentials, or `nil` when none are set.
    func apple(appID: String) async throws -> AppleCredentials?
    func saveApple(_ credentials: AppleCredentials, appID: String) async throws
    /// The app's Google credentials, or `nil` when none are set.
    func google(appID: String) async throws -> GoogleCredentials?
    func saveGoogle(_ credentials: GoogleCredentials, appID: String) async throws
    /// The app's Stripe credentials, or `nil` when none are set.
    func stripe(appID: String) async throws -> StripeCredentials?
    func saveStripe(_ credentials: StripeCredentials, appID: String) async throws
    /// Removes the app's credentials for `store`; `false` when there were none.
    func delete(store: CredentialStore, appID: String) async throws -> Bool
}

/// ``CredentialsRepository`` on PostgreSQL: a readable public view and the sealed whole.
struct CredentialsPostgresRepository: CredentialsRepository {
    let client: PostgresClient
    let box: SecretBox
    let logger: Logger

    private static func context(appID: String, store: CredentialStore) -> String { "\(appID)/\(store.rawValue)" }

    func apple(appID: String) async throws -> AppleCredentials? {
        guard let plaintext = try await sealed(appID: appID, store: .apple) else { return nil }
        return try JSONDecoder().decode(AppleCredentials.self, from: plaintext)
    }

    func saveApple(_ credentials: AppleCredentials, appID: String) async throws {
        try await save(
            appID: appID, store: .apple, whole: try JSONEncoder().encode(credentials),
            view: try JSONEncoder().encode(credentials.view))
    }

    func google(appID: String) async throws -> GoogleCredentials? {
        guard let plaintext = try await sealed(appID: appID, store: .google) else { return nil }
        return try JSONDecoder().decode(GoogleCredentials.self, from: plaintext)
    }

    func saveGoogle(_ credentials: GoogleCredentials, appID: String) async throws {
        try await save(
            appID: appID, store: .google, whole: try JSONEncoder().encode(credentials),
            view: try JSONEncoder().encode(credentials.view))
    }

    func stripe(appID: String) async throws -> StripeCredentials? {
        guard let plaintext = try await sealed(appID: appID, store: .stripe) else { return nil }
        return try JSONDecoder().decode(StripeCredentials.self, from: plaintext)
    }

    func saveStripe(_ credentials: StripeCredentials, appID: String) async throws {
        try await save(
            appID: appID, store: .stripe, whole: try JSONEncoder().encode(credentials),
            view: try JSONEncoder().encode(credentials.view))
    }

    func delete(store: CredentialStore, appID: String) async throws -> Bool {
        let rows = try await client.query(
            """
            DELETE FROM verifier.store_credentials WHERE app_id = \(appID) AND store = \(store.rawValue)
            RETURNING app_id
            """,
            logger: logger
        )
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    private func save(appID: String, store: CredentialStore, whole: Data, view: Data) async throws {
        let sealed = try box.seal(whole, context: Self.context(appID: appID, store: store))
        let viewText = String(decoding: view, as: UTF8.self)
        try await client.query(
            """
            INSERT INTO verifier.store_credentials (app_id, store, public_view, sealed, key_id)
            VALUES (\(appID), \(store.rawValue), \(viewText)::jsonb, \(ByteBuffer(bytes: sealed)), \(box.keyID))
            ON CONFLICT (app_id, store) DO UPDATE
            SET public_view = excluded.public_view, sealed = excluded.sealed, key_id = excluded.key_id,
                updated_at = now()
            """,
            logger: logger
        )
    }

    private func sealed(appID: String, store: CredentialStore) async throws -> Data? {
        let rows = try await client.query(
            """
            SELECT sealed, key_id FROM verifier.store_credentials
            WHERE app_id = \(appID) AND store = \(store.rawValue)
            """,
            logger: logger
        )
        for try await (sealed, keyID) in rows.decode((ByteBuffer, String).self) {
            do {
                return try box.open(
                    Data(sealed.readableBytesView), context: Self.context(appID: appID, store: store), keyID: keyID)
            } catch {
                logger.error(
                    "stored store credentials do not open",
                    metadata: ["app_id": "\(appID)", "store": "\(store.rawValue)", "error": "\(error)"])
                throw VerifierError.credentialsUnreadable(store, error.description)
            }
        }
        return nil
    }
}
