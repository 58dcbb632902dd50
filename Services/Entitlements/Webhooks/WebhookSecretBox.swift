import Foundation
import ShopkeeperCore

/// Seals apps' webhook signing secrets for storage: a ``SecretBox`` of its own purpose under
/// `SHOPKEEPER_MASTER_KEY`, with the app id bound as associated data, so a sealed secret copied to another app's row
/// does not open.
struct WebhookSecretBox: Sendable {
    private let box: SecretBox
    /// A short fingerprint of the key, stored beside sealed values to tell a changed master key from corrupted data.
    var keyID: String { box.keyID }

    init(masterKey: String) {
        box = SecretBox(masterKey: masterKey, purpose: "webhook secrets")
    }

    /// The sealed form of `secret`, for `app_settings.webhook_secret_sealed`.
    func seal(_ secret: String, appID: String) throws -> Data {
        try box.seal(Data(secret.utf8), context: appID)
    }

    /// The secret, or ``WebhookFailure/secretUnavailable`` when it was sealed under another master key or for
    /// another app, or is corrupted.
    func open(_ sealed: Data, appID: String, keyID: String) throws(WebhookFailure) -> String {
        do {
            return String(decoding: try box.open(sealed, context: appID, keyID: keyID), as: UTF8.self)
        } catch {
            throw .secretUnavailable
        }
    }
}
