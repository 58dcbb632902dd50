import Foundation

/// An app's signed answers (`GET /v1/admin/answer-signing`): whether the gateway signs them and the keys an app may
/// trust. The gateway signs with the active key; every listed key verifies (two at once while one replaces another).
package struct AnswerSigningKeys: Codable, Hashable, Sendable {
    /// Whether the gateway signs the app's answers: it has an active key.
    package var signing: Bool
    /// The live keys, the active one first.
    package var keys: [AnswerSigningKeyInfo]

    package init(keys: [AnswerSigningKeyInfo]) {
        self.keys = keys.sorted { first, second in first.active && !second.active }
        self.signing = keys.contains(where: \.active)
    }
}

/// One key that signs an app's answers (Ed25519). Its private key never leaves the gateway.
package struct AnswerSigningKeyInfo: Codable, Hashable, Sendable {
    package var keyID: String
    /// Always `Ed25519`.
    package var algorithm: String
    /// The 32-byte Ed25519 public key, base64 (what an app's ShopkeeperKit configuration lists).
    package var publicKey: String
    /// Whether the gateway signs with this key now.
    package var active: Bool
    package var createdAt: Date
    /// When it was retired; set only in the answer that retires it.
    package var retiredAt: Date?

    package init(
        keyID: String, publicKey: String, active: Bool, createdAt: Date, retiredAt: Date? = nil
    ) {
        self.keyID = keyID
        self.algorithm = "Ed25519"
        self.publicKey = publicKey
        self.active = active
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }

    package enum CodingKeys: String, CodingKey {
        case algorithm, active
        case keyID = "key_id"
        case publicKey = "public_key"
        case createdAt = "created_at"
        case retiredAt = "retired_at"
    }
}
