import ShopkeeperCustomerTokens
import ShopkeeperModels

/// A key that authenticated: who it belongs to, what it may do, and how its app's public-key callers prove which
/// customer they act for.
struct KeyIdentity: Sendable, Hashable {
    var keyID: String
    var appID: String
    var kind: APIKeyKind
    /// The app's customer boundary mode.
    var boundary: CustomerBoundaryMode = .open
    /// The app's live customer token secrets (opened) and public keys (only loaded in `signed` mode).
    var tokenKeys = CustomerTokenKeys()
    /// The app's active answer signing key, when it signs its answers (``AnswerSigner``).
    var answerSigner: AnswerSigner? = nil
}

/// Apps and their API keys.
protocol AppRepository: Sendable {
    func createApp(name: String) async throws -> AppInfo
    func apps() async throws -> [AppInfo]
    /// Throws ``GatewayError/appNotFound`` when absent.
    func app(appID: String) async throws -> AppInfo
    /// Stores a new key's hash; returns its listing.
    func createKey(appID: String, kind: APIKeyKind, label: String?, keyHash: [UInt8], prefix: String) async throws
        -> APIKeyInfo
    func keys(appID: String) async throws -> [APIKeyInfo]
    /// Marks a key revoked (idempotent); throws ``GatewayError/keyNotFound`` when the app has no such key.
    func revokeKey(appID: String, keyID: String) async throws -> APIKeyInfo
    /// The live key with this hash, or `nil` when unknown or revoked; in `signed` mode with the app's secrets.
    func identity(keyHash: [UInt8]) async throws -> KeyIdentity?

    /// The app's customer boundary; throws ``GatewayError/appNotFound`` when absent.
    func customerBoundary(appID: String) async throws -> CustomerBoundary
    /// Sets the mode; `signed` needs a live secret or public key (``GatewayError/customerTokenSecretRequired``).
    func setCustomerBoundary(appID: String, mode: CustomerBoundaryMode) async throws -> CustomerBoundary
    /// Stores a new secret, sealed; returns its listing.
    func createTokenSecret(appID: String, secret: CustomerTokenSecret) async throws -> CustomerTokenSecretInfo
    /// Marks a secret revoked (idempotent); throws ``GatewayError/customerTokenSecretNotFound`` when absent.
    func revokeTokenSecret(appID: String, secretID: String) async throws -> CustomerTokenSecretInfo
    /// Stores a public key (already checked to be one).
    func registerTokenPublicKey(appID: String, key: CustomerTokenPublicKey) async throws -> CustomerTokenPublicKeyInfo
    /// Marks a public key revoked (idempotent); throws ``GatewayError/customerTokenPublicKeyNotFound`` when absent.
    func revokeTokenPublicKey(appID: String, keyID: String) async throws -> CustomerTokenPublicKeyInfo
}
