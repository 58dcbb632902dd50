import Foundation
import Testing

@testable import ShopkeeperKit

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The kit's check of signed answers, against answers signed here by the documented format: each way an answer can
/// be forged or misused is refused.
@Suite struct AnswerVerifierTests {
    let key = Curve25519.Signing.PrivateKey()
    let body = Data(#"{"app_user_id":"alice","entitlements":{}}"#.utf8)

    func verifier(keys: [String: String]? = nil, maxAge: TimeInterval = 300) throws -> AnswerVerifier {
        let configuration = ShopkeeperConfiguration(
            baseURL: URL(string: "http://127.0.0.1:1")!, apiKey: "pk_test", appVersion: "1.0",
            storageDirectory: FileManager.default.temporaryDirectory,
            answerKeys: keys ?? ["ask_one": key.publicKey.rawRepresentation.base64EncodedString()], answerMaxAge: maxAge
        )
        return try #require(AnswerVerifier(configuration: configuration))
    }

    /// An answer signed for `target` and `nonce` at `time`, with `etag`.
    func answer(
        status: Int = 200, target: String = "/v1/customers/alice", nonce: String = "n1", time: Date = Date(),
        etag: String? = "\"e1\"", body: Data? = nil, keyID: String = "ask_one",
        signer: Curve25519.Signing.PrivateKey? = nil
    ) throws -> HTTPAnswer {
        let body = body ?? (status == 304 ? Data() : self.body)
        let seconds = String(Int64(time.timeIntervalSince1970))
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        let message = ["shopkeeper-answer-v1", String(status), target, nonce, seconds, etag ?? "", digest]
            .joined(separator: "\n")
        let signature = try (signer ?? key).signature(for: Data(message.utf8)).base64EncodedString()
        var headers = ["x-shopkeeper-signature": "v1;key=\(keyID);t=\(seconds);sig=\(signature)"]
        if let etag { headers["etag"] = etag }
        return HTTPAnswer(status: status, headers: headers, body: body)
    }

    func refuses(_ answer: HTTPAnswer, target: String = "/v1/customers/alice", nonce: String = "n1") throws -> Bool {
        let verifier = try verifier()
        do throws(ShopkeeperError) {
            try verifier.verify(answer, target: target, nonce: nonce)
            return false
        } catch {
            if case .untrustedAnswer = error { return true }
            return false
        }
    }

    @Test func aSignedAnswerToThisRequestIsTaken() throws {
        try verifier().verify(try answer(), target: "/v1/customers/alice", nonce: "n1")
        try verifier().verify(try answer(status: 304), target: "/v1/customers/alice", nonce: "n1")
        try verifier().verify(
            try answer(target: "/v1/catalog?platform=app_store&app_version=1.0", etag: nil),
            target: "/v1/catalog?platform=app_store&app_version=1.0", nonce: "n1")
    }

    @Test func alteredAnswersAreRefused() throws {
        var flipped = try answer()
        flipped.body = Data(#"{"app_user_id":"alice","entitlements":{"pro":{"active":true}}}"#.utf8)
        #expect(try refuses(flipped))
        var otherStatus = try answer()
        otherStatus.status = 201
        #expect(try refuses(otherStatus))
        var otherTag = try answer()
        otherTag.headers["etag"] = "\"e2\""
        #expect(try refuses(otherTag))
    }

    @Test func answersToOtherRequestsAreRefused() throws {
        // A replay of an older answer carries the older request's nonce; an answer to another path is not this one's.
        #expect(try refuses(try answer(nonce: "n0")))
        #expect(try refuses(try answer(target: "/v1/customers/bob")))
        #expect(try refuses(try answer(), target: "/v1/customers/alice?x=1"))
    }

    @Test func unsignedStaleOrForeignAnswersAreRefused() throws {
        var unsigned = try answer()
        unsigned.headers["x-shopkeeper-signature"] = nil
        #expect(try refuses(unsigned))
        // Five minutes is the limit; ten seconds past it either way, so that the whole-second `t=` and the clock read
        // later cannot bring a stale answer back within it.
        #expect(try refuses(try answer(time: Date().addingTimeInterval(-310))))
        #expect(try refuses(try answer(time: Date().addingTimeInterval(310))))
        // Signed by a key the app does not trust, under a trusted key's id or its own.
        #expect(try refuses(try answer(signer: Curve25519.Signing.PrivateKey())))
        #expect(try refuses(try answer(keyID: "ask_other", signer: Curve25519.Signing.PrivateKey())))
        var malformed = try answer()
        malformed.headers["x-shopkeeper-signature"] = "v2;key=ask_one;t=1;sig=AAAA"
        #expect(try refuses(malformed))
        malformed.headers["x-shopkeeper-signature"] = "v1;key=ask_one;sig=AAAA"
        #expect(try refuses(malformed))
    }

    @Test func rotationTrustsEitherKeyAndAMisconfiguredKeyIsNamed() throws {
        let next = Curve25519.Signing.PrivateKey()
        let both = try verifier(keys: [
            "ask_one": key.publicKey.rawRepresentation.base64EncodedString(),
            "ask_two": next.publicKey.rawRepresentation.base64EncodedString(),
        ])
        try both.verify(try answer(), target: "/v1/customers/alice", nonce: "n1")
        try both.verify(try answer(keyID: "ask_two", signer: next), target: "/v1/customers/alice", nonce: "n1")
        let broken = try verifier(keys: ["ask_one": "not base64 of a key"])
        #expect(
            throws: ShopkeeperError.untrustedAnswer("the configured key 'ask_one' is not a base64 Ed25519 public key")
        ) {
            try broken.verify(try answer(), target: "/v1/customers/alice", nonce: "n1")
        }
    }

    @Test func theTargetIsThePathAndQueryAsSent() throws {
        let url = try #require(URL(string: "http://h:1/v1/customers/a%20b?platform=app_store&x=%2B"))
        #expect(AnswerVerifier.target(of: url) == "/v1/customers/a%20b?platform=app_store&x=%2B")
        #expect(AnswerVerifier.target(of: try #require(URL(string: "http://h:1"))) == "/")
    }
}
