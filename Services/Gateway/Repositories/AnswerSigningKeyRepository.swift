import Crypto
import ShopkeeperModels

/// The keys that sign an app's answers (``AnswerSigner``). The active key itself reaches the proxy with the API key's
/// identity (``KeyIdentity/answerSigner``).
protocol AnswerSigningKeyRepository: Sendable {
    /// The app's live keys; throws ``GatewayError/appNotFound`` when absent.
    func answerSigning(appID: String) async throws -> AnswerSigningKeys
    /// Stores a new key, its private key sealed; it is active at once when the app has no live key.
    func createAnswerSigningKey(appID: String, keyID: String, privateKey: Curve25519.Signing.PrivateKey) async throws
        -> AnswerSigningKeyInfo
    /// Makes a live key the one that signs; throws ``GatewayError/answerSigningKeyNotFound`` when absent or retired.
    func activateAnswerSigningKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo
    /// Retires a live key, so it no longer signs nor is listed; the active key only when it is the app's last one
    /// (signing stops), else ``GatewayError/answerSigningKeyActive``.
    func retireAnswerSigningKey(appID: String, keyID: String) async throws -> AnswerSigningKeyInfo
}
