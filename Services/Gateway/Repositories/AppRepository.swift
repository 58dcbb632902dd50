import ShopkeeperModels

/// A key that authenticated: who it belongs to and what it may do.
struct KeyIdentity: Sendable, Hashable {
    var keyID: String
    var appID: String
    var kind: APIKeyKind
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
    /// The live key with this hash, or `nil` when unknown or revoked.
    func identity(keyHash: [UInt8]) async throws -> KeyIdentity?
}
