import Foundation
import ShopkeeperCore

/// Seals customer token secrets for storage: a ``SecretBox`` of its own purpose, with the app and secret id bound as
/// associated data, so a sealed value copied to another row does not open.
struct TokenSecretBox: Sendable {
    private let box: SecretBox
    /// A short fingerprint of the key, stored beside sealed values to tell a changed master key from corrupted data.
    var keyID: String { box.keyID }

    init(masterKey: String) {
        box = SecretBox(masterKey: masterKey, purpose: "customer token secrets")
    }

    /// The associated data of one secret.
    private static func context(appID: String, secretID: String) -> String {
        "\(appID)\n\(secretID)"
    }

    func seal(_ secret: String, appID: String, secretID: String) throws -> Data {
        try box.seal(Data(secret.utf8), context: Self.context(appID: appID, secretID: secretID))
    }

    /// The secret's text, or `nil` when it was sealed under another master key or does not open.
    func open(_ sealed: Data, appID: String, secretID: String, keyID: String) -> String? {
        guard
            let plain = try? box.open(sealed, context: Self.context(appID: appID, secretID: secretID), keyID: keyID)
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }
}
