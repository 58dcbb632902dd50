import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// Checks the signature Shopkeeper's gateway puts on its answers (`X-Shopkeeper-Signature`, see `docs/openapi.yaml`,
/// "Signed answers") when the app trusts answer keys (``ShopkeeperConfiguration/answerKeys``): each request carries
/// a fresh nonce, and an answer is taken only if one of the trusted keys signed exactly it (status, the request's
/// path and query, that nonce, the entity tag and the body) within ``ShopkeeperConfiguration/answerMaxAge`` of the
/// device's clock. So a proxy or a tampered device cannot flip `active` to `true`, replay an older answer, drop the
/// signature or hand one request's answer to another: each is ``ShopkeeperError/untrustedAnswer(_:)``.
struct AnswerVerifier: Sendable {
    /// The trusted keys by id; `nil` for a configured key that is not a 32-byte Ed25519 public key in base64.
    private let keys: [String: Curve25519.Signing.PublicKey?]
    private let maxAge: TimeInterval

    static let nonceHeader = "X-Shopkeeper-Nonce"
    static let signatureHeader = "X-Shopkeeper-Signature"

    /// `nil` when the app trusts no key (answers are then taken unsigned).
    init?(configuration: ShopkeeperConfiguration) {
        guard !configuration.answerKeys.isEmpty else { return nil }
        keys = configuration.answerKeys.mapValues { text in
            Data(base64Encoded: text).flatMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
        }
        maxAge = configuration.answerMaxAge
    }

    /// A fresh nonce for one request.
    func makeNonce() -> String { UUID().uuidString }

    /// Throws unless `answer` is signed by a trusted key for the request to `target` (path and query as sent) with
    /// `nonce`, at most ``ShopkeeperConfiguration/answerMaxAge`` from `now`.
    func verify(_ answer: HTTPAnswer, target: String, nonce: String, now: Date = Date()) throws(ShopkeeperError) {
        guard let header = answer.header(Self.signatureHeader) else { throw .untrustedAnswer("the answer is unsigned") }
        let items = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard items.first == "v1" else { throw .untrustedAnswer("unknown signature version in '\(header)'") }
        var parts: [String: String] = [:]
        for item in items.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { throw .untrustedAnswer("malformed signature") }
            parts[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        guard let keyID = parts["key"], let time = parts["t"], let seconds = Int64(time),
            let signature = parts["sig"].flatMap({ Data(base64Encoded: $0) })
        else { throw .untrustedAnswer("malformed signature '\(header)'") }
        guard let trusted = keys[keyID] else {
            throw .untrustedAnswer("signed with key '\(keyID)', which the app does not trust")
        }
        guard let key = trusted else {
            throw .untrustedAnswer("the configured key '\(keyID)' is not a base64 Ed25519 public key")
        }
        let message = [
            "shopkeeper-answer-v1", String(answer.status), target, nonce, time, answer.header("ETag") ?? "",
            SHA256Hasher.hex(of: answer.body),
        ].joined(separator: "\n")
        guard key.isValidSignature(signature, for: Data(message.utf8)) else {
            throw .untrustedAnswer("the signature does not match this answer to this request")
        }
        guard abs(Double(seconds) - now.timeIntervalSince1970) <= maxAge else {
            throw .untrustedAnswer("signed at \(seconds), more than \(Int(maxAge)) s from the device's clock")
        }
    }

    /// The request target a URL is sent with: its path and query, percent-encoded as on the wire.
    static func target(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.path }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}
