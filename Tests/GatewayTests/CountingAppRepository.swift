import NIOConcurrencyHelpers
import ShopkeeperCustomerTokens
import ShopkeeperDatabase
import ShopkeeperModels

@testable import Gateway

/// The real repository, with its key lookups counted and, while ``hold()`` is in force, their answers (read from
/// PostgreSQL first) held until ``release(failing:)``: so a test can have many requests arrive, or a key be revoked,
/// while a lookup is still on its way back.
final class CountingAppRepository: AppRepository {
    private enum Outcome {
        case proceed
        case fail
    }

    private struct State {
        var lookups = 0
        var holding = false
        var held: [CheckedContinuation<Outcome, Never>] = []
    }

    private let base: any AppRepository
    private let state = NIOLockedValueBox(State())

    init(_ base: any AppRepository) {
        self.base = base
    }

    /// Key lookups since the start or the last ``resetCount()`` (counted once their answer is read).
    var lookups: Int { state.withLockedValue { $0.lookups } }

    /// Lookups whose answer is held now (read from PostgreSQL, waiting for ``release(failing:)``).
    var held: Int { state.withLockedValue { $0.held.count } }

    func resetCount() {
        state.withLockedValue { $0.lookups = 0 }
    }

    /// Lookups from now on wait for ``release(failing:)``.
    func hold() {
        state.withLockedValue { $0.holding = true }
    }

    /// Lets the held lookups go on (or fail as a lost connection does) and stops holding.
    func release(failing: Bool = false) {
        let held = state.withLockedValue { state in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume(returning: failing ? .fail : .proceed) }
    }

    func identity(keyHash: [UInt8]) async throws -> KeyIdentity? {
        let answer = try await base.identity(keyHash: keyHash)
        let outcome = await withCheckedContinuation { continuation in
            state.withLockedValue { state in
                state.lookups += 1
                if state.holding {
                    state.held.append(continuation)
                } else {
                    continuation.resume(returning: .proceed)
                }
            }
        }
        if outcome == .fail { throw DatabaseConnectionLost() }
        return answer
    }

    // Everything else goes straight through.

    func createApp(name: String) async throws -> AppInfo { try await base.createApp(name: name) }
    func apps() async throws -> [AppInfo] { try await base.apps() }
    func app(appID: String) async throws -> AppInfo { try await base.app(appID: appID) }
    func createKey(appID: String, kind: APIKeyKind, label: String?, keyHash: [UInt8], prefix: String) async throws
        -> APIKeyInfo
    {
        try await base.createKey(appID: appID, kind: kind, label: label, keyHash: keyHash, prefix: prefix)
    }
    func keys(appID: String) async throws -> [APIKeyInfo] { try await base.keys(appID: appID) }
    func revokeKey(appID: String, keyID: String) async throws -> APIKeyInfo {
        try await base.revokeKey(appID: appID, keyID: keyID)
    }
    func customerBoundary(appID: String) async throws -> CustomerBoundary {
        try await base.customerBoundary(appID: appID)
    }
    func setCustomerBoundary(appID: String, mode: CustomerBoundaryMode) async throws -> CustomerBoundary {
        try await base.setCustomerBoundary(appID: appID, mode: mode)
    }
    func createTokenSecret(appID: String, secret: CustomerTokenSecret) async throws -> CustomerTokenSecretInfo {
        try await base.createTokenSecret(appID: appID, secret: secret)
    }
    func revokeTokenSecret(appID: String, secretID: String) async throws -> CustomerTokenSecretInfo {
        try await base.revokeTokenSecret(appID: appID, secretID: secretID)
    }
    func registerTokenPublicKey(appID: String, key: CustomerTokenPublicKey) async throws -> CustomerTokenPublicKeyInfo {
        try await base.registerTokenPublicKey(appID: appID, key: key)
    }
    func revokeTokenPublicKey(appID: String, keyID: String) async throws -> CustomerTokenPublicKeyInfo {
        try await base.revokeTokenPublicKey(appID: appID, keyID: keyID)
    }
}
