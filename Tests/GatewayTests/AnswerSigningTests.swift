import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Signed answers (`X-Shopkeeper-Signature`): off until the app has a key; then every answer an app trusts is signed
/// whichever way the gateway made it (forwarded, from the micro-cache, from the stored customer info, a `304`), on
/// the channel path and the router's alike, bound to the request's nonce and path; keys rotate without a gap.
@Suite struct AnswerSigningTests {
    static let origin = "https://shop.example"

    @Test func everyAnswerIsSignedWhicheverWayItWasMade() async throws {
        try await SignedPurchaseWorld.run(environment: ["SHOPKEEPER_CORS_ORIGINS": Self.origin]) { world in
            let pk = world.app.publicKey.key
            let unsigned = try await world.send(.get, "/v1/customers/alice", bearer: pk, token: nil)
            #expect(unsigned.status == .ok)
            #expect(unsigned.headers[AnswerSigner.signatureField] == nil)

            let key = try await world.createKey()
            #expect(key.active)
            #expect(Data(base64Encoded: key.publicKey)?.count == 32)
            let keys = [key.keyID: key.publicKey]

            // The purchase (a write, forwarded), then reads: the first may go to the router (the key is not
            // remembered yet), later ones take the channel path; the customer's read is answered from the stored
            // info once the purchase stored it.
            let jws = try world.signedTransaction()
            let bought = try await world.purchase(
                "alice", jws: jws, bearer: pk, token: nil, headers: [AnswerSigner.nonceField: "n-purchase"])
            #expect(bought.status == .ok)
            try SignedAnswerCheck.verify(bought, target: "/v1/purchases", nonce: "n-purchase", keys: keys)
            for nonce in ["n-read-1", "n-read-2", "n-read-3"] {
                let read = try await world.send(
                    .get, "/v1/customers/alice", bearer: pk, token: nil, headers: [AnswerSigner.nonceField: nonce])
                #expect(read.status == .ok)
                try SignedAnswerCheck.verify(read, target: "/v1/customers/alice", nonce: nonce, keys: keys)
                // Not Modified vouches for the entity tag the app holds.
                let etag = try #require(read.headers[.eTag])
                let same = try await world.send(
                    .get, "/v1/customers/alice", bearer: pk, token: nil,
                    headers: [AnswerSigner.nonceField: nonce + "-304", .ifNoneMatch: etag])
                #expect(same.status == .notModified)
                try SignedAnswerCheck.verify(
                    same, target: "/v1/customers/alice", nonce: nonce + "-304", keys: keys, etag: etag)
            }
            // The catalog twice: the second from the micro-cache, signed for its own request.
            let catalogPath = "/v1/catalog?platform=app_store&app_version=1.0"
            var signatures: Set<String> = []
            for nonce in ["n-catalog-1", "n-catalog-2"] {
                let catalog = try await world.send(
                    .get, catalogPath, bearer: pk, token: nil, headers: [AnswerSigner.nonceField: nonce])
                #expect(catalog.status == .ok)
                try SignedAnswerCheck.verify(catalog, target: catalogPath, nonce: nonce, keys: keys)
                signatures.insert(catalog.headers[AnswerSigner.signatureField] ?? "")
            }
            #expect(signatures.count == 2)
            // The router's path (a browser's request, with an Origin) signs the same way.
            let browser = try await world.send(
                .get, "/v1/customers/alice", bearer: pk, token: nil,
                headers: [AnswerSigner.nonceField: "n-browser", .origin: Self.origin])
            #expect(browser.status == .ok)
            #expect(browser.headers[.accessControlAllowOrigin] == Self.origin)
            try SignedAnswerCheck.verify(browser, target: "/v1/customers/alice", nonce: "n-browser", keys: keys)
            // An answer is bound to its request: not to another nonce, path or body.
            let read = try await world.send(
                .get, "/v1/customers/alice", bearer: pk, token: nil, headers: [AnswerSigner.nonceField: "n-bound"])
            #expect(throws: SignedAnswerCheck.Failure.self) {
                try SignedAnswerCheck.verify(read, target: "/v1/customers/alice", nonce: "n-other", keys: keys)
            }
            #expect(throws: SignedAnswerCheck.Failure.self) {
                try SignedAnswerCheck.verify(read, target: "/v1/customers/bob", nonce: "n-bound", keys: keys)
            }
            let tampered = ByteBuffer(string: read.text.replacingOccurrences(of: "\"pro\"", with: "\"max\""))
            #expect(tampered != read.body)
            #expect(throws: SignedAnswerCheck.Failure.self) {
                try SignedAnswerCheck.verify(
                    status: read.status, headers: read.headers, body: tampered, target: "/v1/customers/alice",
                    nonce: "n-bound", keys: keys)
            }
        }
    }

    @Test func keysRotateWithoutAGapAndOnlyTheSecretKeyManagesThem() async throws {
        try await SignedPurchaseWorld.run { world in
            let sk = world.app.secretKey.key
            let pk = world.app.publicKey.key
            let refused = try await world.send(.post, "/v1/admin/answer-signing/keys", bearer: pk, token: nil)
            #expect(refused.status == .forbidden)
            #expect(try code(refused) == "secret_key_required")

            let first = try await world.createKey()
            let second = try await world.createKey()
            #expect(first.active && !second.active)
            let listed = try await world.signingKeys()
            #expect(listed.signing)
            #expect(listed.keys.map(\.keyID) == [first.keyID, second.keyID])
            // The second is published but does not sign yet.
            try await world.expectSigned(by: first)

            // The active key cannot be retired while another could take its place; unknown keys are 404.
            let busy = try await world.send(
                .delete, "/v1/admin/answer-signing/keys/\(first.keyID)", bearer: sk, token: nil)
            #expect(busy.status == .conflict)
            #expect(try code(busy) == "answer_signing_key_active")
            let unknown = try await world.send(
                .post, "/v1/admin/answer-signing/keys/ask_nope/activate", bearer: sk, token: nil)
            #expect(unknown.status == .notFound)
            #expect(try code(unknown) == "answer_signing_key_not_found")

            let activated = try await world.send(
                .post, "/v1/admin/answer-signing/keys/\(second.keyID)/activate", bearer: sk, token: nil)
            #expect(activated.status == .ok)
            #expect(try activated.decode(AnswerSigningKeyInfo.self).active)
            try await world.expectSigned(by: second)
            let retired = try await world.send(
                .delete, "/v1/admin/answer-signing/keys/\(first.keyID)", bearer: sk, token: nil)
            #expect(retired.status == .ok)
            #expect(try retired.decode(AnswerSigningKeyInfo.self).retiredAt != nil)
            #expect(try await world.signingKeys().keys.map(\.keyID) == [second.keyID])
            let again = try await world.send(
                .post, "/v1/admin/answer-signing/keys/\(first.keyID)/activate", bearer: sk, token: nil)
            #expect(again.status == .notFound)

            // The last key may go: signing stops.
            let last = try await world.send(
                .delete, "/v1/admin/answer-signing/keys/\(second.keyID)", bearer: sk, token: nil)
            #expect(last.status == .ok)
            #expect(try await world.signingKeys().signing == false)
            let read = try await world.send(.get, "/v1/customers/alice", bearer: pk, token: nil)
            #expect(read.status == .ok)
            #expect(read.headers[AnswerSigner.signatureField] == nil)

            // Every change is in the audit log.
            let log = try await world.send(.get, "/v1/admin/audit-log", bearer: sk, token: nil)
            for action in ["answer_signing_key.create", "answer_signing_key.activate", "answer_signing_key.retire"] {
                #expect(log.text.contains(action))
            }
        }
    }

    @Test func keysCreatedAtOnceLeaveExactlyOneThatSigns() async throws {
        try await SignedPurchaseWorld.run { world in
            // Ten creations at once on an app without a key: each may find no live key and start active, but the one
            // that signs is always the last activated, and every answer verifies with it.
            let created = try await withThrowingTaskGroup(of: AnswerSigningKeyInfo.self) { group in
                for _ in 0..<10 { group.addTask { try await world.createKey() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(created.map(\.keyID)).count == 10)
            let listed = try await world.signingKeys()
            #expect(listed.keys.count == 10)
            let active = listed.keys.filter(\.active)
            #expect(active.count == 1)
            let signer = try #require(active.first)
            #expect(listed.keys.first == signer, "the active key is listed first")
            try await world.expectSigned(by: signer)
        }
    }
}

extension SignedPurchaseWorld {
    func createKey() async throws -> AnswerSigningKeyInfo {
        let created = try await send(.post, "/v1/admin/answer-signing/keys", bearer: app.secretKey.key, token: nil)
        guard created.status == .created else { throw WorldError("creating a signing key: \(created.text)") }
        return try created.decode(AnswerSigningKeyInfo.self)
    }

    func signingKeys() async throws -> AnswerSigningKeys {
        let listed = try await send(.get, "/v1/admin/answer-signing", bearer: app.secretKey.key, token: nil)
        guard listed.status == .ok else { throw WorldError("listing signing keys: \(listed.text)") }
        return try listed.decode(AnswerSigningKeys.self)
    }

    /// A read signed by `key` (within the key cache: the gateway forgets remembered keys on every change).
    func expectSigned(by key: AnswerSigningKeyInfo) async throws {
        let nonce = UUID().uuidString
        let read = try await send(
            .get, "/v1/customers/alice", bearer: app.publicKey.key, token: nil,
            headers: [AnswerSigner.nonceField: nonce])
        try SignedAnswerCheck.verify(
            read, target: "/v1/customers/alice", nonce: nonce, keys: [key.keyID: key.publicKey])
    }
}

/// Checks an answer's `X-Shopkeeper-Signature` as an app does, written from the format's documentation (not with
/// the gateway's signer).
enum SignedAnswerCheck {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func verify(
        _ response: TestResponse, target: String, nonce: String, keys: [String: String], etag: String? = nil
    ) throws {
        try verify(
            status: response.status, headers: response.headers, body: response.body, target: target, nonce: nonce,
            keys: keys, etag: etag)
    }

    static func verify(
        status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer, target: String, nonce: String,
        keys: [String: String], etag: String? = nil
    ) throws {
        guard let header = headers[AnswerSigner.signatureField] else { throw Failure(description: "unsigned") }
        var parts: [String: String] = [:]
        let items = header.split(separator: ";")
        guard items.first == "v1" else { throw Failure(description: "not v1: \(header)") }
        for item in items.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { throw Failure(description: "malformed: \(header)") }
            parts[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        guard let keyID = parts["key"], let publicKey = keys[keyID].flatMap({ Data(base64Encoded: $0) }),
            let time = parts["t"], let signature = parts["sig"].flatMap({ Data(base64Encoded: $0) })
        else { throw Failure(description: "unknown key or missing part: \(header)") }
        let digest = SHA256.hash(data: Data(body.readableBytesView)).map { String(format: "%02x", $0) }.joined()
        let lines = [
            "shopkeeper-answer-v1", String(status.code), target, nonce, time, etag ?? headers[.eTag] ?? "", digest,
        ]
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        guard key.isValidSignature(signature, for: Data(lines.joined(separator: "\n").utf8)) else {
            throw Failure(description: "signature does not verify")
        }
        guard let seconds = Double(time), abs(seconds - Date().timeIntervalSince1970) < 300 else {
            throw Failure(description: "stale: \(time)")
        }
    }
}
