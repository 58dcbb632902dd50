import Crypto
import Foundation
import HTTPTypes
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP

/// Signs an app's answers so that the app can tell them from forged ones (a local proxy or a jailbroken device that
/// answers `"active": true`): one Ed25519 key per app, its private key sealed in the database
/// (``AnswerSigningKeyBox``), its public key in the app.
///
/// The answer carries `X-Shopkeeper-Signature: v1;key=<key id>;t=<unix seconds>;sig=<base64 signature>`, the
/// signature over these lines joined by `\n` (UTF-8, no trailing newline):
///
///     shopkeeper-answer-v1
///     <status code>
///     <the request target as the client sent it: path and query>
///     <the request's X-Shopkeeper-Nonce, or nothing>
///     <t>
///     <the answer's ETag, or nothing>
///     <the SHA-256 of the body, lowercase hex (of no bytes for a 304)>
///
/// so an answer cannot be altered, given to another request (the nonce, the path) or passed off as another status;
/// a `304` vouches for the entity tag the app holds the body of. `docs/architecture.md`, "Signed answers".
struct AnswerSigner: Sendable, Hashable {
    let keyID: String
    let privateKey: Curve25519.Signing.PrivateKey

    /// The response header that carries the signature.
    static let signatureField = "X-Shopkeeper-Signature".fieldName
    /// The request header with the client's nonce.
    static let nonceField = "X-Shopkeeper-Nonce".fieldName

    /// The header value for an answer, signed at `time`.
    func signature(
        status: Int, target: String, nonce: String?, etag: String?, body: ByteBuffer?, at time: Date = Date()
    ) -> String {
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        let message = Self.message(
            status: status, target: target, nonce: nonce, timestamp: seconds, etag: etag, body: body)
        // Ed25519 signing does not fail for a valid key and any message length.
        let signature = (try? privateKey.signature(for: message)) ?? Data()
        return "v1;key=\(keyID);t=\(seconds);sig=\(signature.base64EncodedString())"
    }

    /// The signed message (see the type's documentation).
    static func message(
        status: Int, target: String, nonce: String?, timestamp: Int64, etag: String?, body: ByteBuffer?
    ) -> [UInt8] {
        let digest = body.map { SHA256.hash(data: $0.readableBytesView) } ?? SHA256.hash(data: [UInt8]())
        let text =
            "shopkeeper-answer-v1\n\(status)\n\(target)\n\(nonce ?? "")\n\(timestamp)\n\(etag ?? "")\n"
            + digest.hexString
        return Array(text.utf8)
    }

    static func == (left: AnswerSigner, right: AnswerSigner) -> Bool {
        left.keyID == right.keyID && left.privateKey.rawRepresentation == right.privateKey.rawRepresentation
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
    }
}

/// What one request's answer is signed with and for: worked out once, when the request is taken up.
struct AnswerSigning: Sendable {
    /// Answers to a signed request up to this many bytes are buffered (to be signed) rather than streamed unsigned.
    static let bufferLimit = 8 << 20

    let signer: AnswerSigner
    /// The request target as the client sent it.
    let target: String
    let nonce: String?

    /// The signing of a request to `target` with `fields`, for an app whose active key is `signer` (if any).
    init?(signer: AnswerSigner?, target: String?, nonce: String?) {
        guard let signer else { return nil }
        self.signer = signer
        self.target = target ?? "/"
        self.nonce = nonce
    }

    /// `fields` with the answer's signature added.
    func sign(_ fields: inout HTTPFields, status: HTTPResponse.Status, body: ByteBuffer?) {
        fields[AnswerSigner.signatureField] = signer.signature(
            status: status.code, target: target, nonce: nonce, etag: fields[.eTag], body: body)
    }
}
