import Foundation
import ShopkeeperCore

/// Seals the secrets the gateway keeps per app: customer token secrets and the private keys that sign answers, each
/// kind under a ``SecretBox`` of its own purpose, with the app and the secret's id bound as associated data, so a
/// sealed value copied to another row (or another kind) does not open.
struct GatewaySecretBox: Sendable {
    private let tokenSecrets: SecretBox
    private let answerKeys: SecretBox
    /// A short fingerprint of the customer token secrets' key, stored beside sealed values to tell a changed master
    /// key from corrupted data.
    var keyID: String { tokenSecrets.keyID }
    /// The same for answer signing keys.
    var answerKeyID: String { answerKeys.keyID }

    init(masterKey: String) {
        tokenSecrets = SecretBox(masterKey: masterKey, purpose: "customer token secrets")
        answerKeys = SecretBox(masterKey: masterKey, purpose: "answer signing keys")
    }

    /// The associated data of one secret.
    private static func context(appID: String, secretID: String) -> String {
        "\(appID)\n\(secretID)"
    }

    func seal(_ secret: String, appID: String, secretID: String) throws -> Data {
        try tokenSecrets.seal(Data(secret.utf8), context: Self.context(appID: appID, secretID: secretID))
    }

    /// The secret's text, or `nil` when it was sealed under another master key or does not open.
    func open(_ sealed: Data, appID: String, secretID: String, keyID: String) -> String? {
        guard
            let plain = try? tokenSecrets.open(
                sealed, context: Self.context(appID: appID, secretID: secretID), keyID: keyID)
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    /// Seals an answer signing key's private key (its raw bytes).
    func sealAnswerKey(_ privateKey: Data, appID: String, keyID: String) throws -> Data {
        try answerKeys.seal(privateKey, context: Self.context(appID: appID, secretID: keyID))
    }

    /// An answer signing key's private key, or `nil` when it was sealed under another master key or does not open.
    func openAnswerKey(_ sealed: Data, appID: String, keyID: String, sealingKeyID: String) -> Data? {
        try? answerKeys.open(sealed, context: Self.context(appID: appID, secretID: keyID), keyID: sealingKeyID)
    }
}
