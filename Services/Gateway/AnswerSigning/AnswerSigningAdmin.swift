import Crypto
import ShopkeeperCore
import ShopkeeperModels

/// Creates, activates and retires the keys that sign an app's answers. Every change drops this replica's remembered
/// API keys (which carry the active key), so it applies here at once and on other replicas within
/// `SHOPKEEPER_KEY_CACHE_SECONDS`.
///
/// Rotation without a window where answers fail: create a key (the app's first is active at once; later ones are
/// only published), ship the app trusting both public keys, activate the new key, retire the old one.
struct AnswerSigningAdmin: Sendable {
    let repository: any AnswerSigningKeyRepository
    let authenticator: APIKeyAuthenticator

    func signing(appID: String) async throws -> AnswerSigningKeys {
        try await repository.answerSigning(appID: appID)
    }

    /// A new Ed25519 key (`ask_` id); its private key is generated here and never shown.
    func createKey(appID: String) async throws -> AnswerSigningKeyInfo {
        try await authenticator.invalidatingAll {
            try await repository.createAnswerSigningKey(
                appID: appID, keyID: RandomToken.identifier(prefix: "ask", length: 16),
                privateKey: Curve25519.Signing.PrivateKey())
        }
    }

    func activateKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo {
        try await authenticator.invalidatingAll {
            try await repository.activateAnswerSigningKey(appID: appID, keyID: keyID)
        }
    }

    func retireKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo {
        try await authenticator.invalidatingAll {
            try await repository.retireAnswerSigningKey(appID: appID, keyID: keyID)
        }
    }
}
