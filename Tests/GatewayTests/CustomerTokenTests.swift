import Crypto
import Foundation
import ShopkeeperCustomerTokens
import Testing

/// Customer tokens as any JWT library on the developer's server makes them: HS256 over the secret's text.
enum HandMadeToken {
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A compact HS256 JWS of `claims`, signed with `secret`.
    static func make(_ claims: [String: Any], secret: String, header: [String: Any] = ["alg": "HS256", "typ": "JWT"])
        throws -> String
    {
        let input =
            base64URL(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
            + base64URL(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return input + "." + base64URL(Data(mac))
    }

    /// Claims for `subject` issued `issued` seconds from now and expiring `expires` seconds from now.
    static func claims(_ subject: String, issued: TimeInterval = 0, expires: TimeInterval? = 300) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        var claims: [String: Any] = ["sub": subject, "iat": Int(now + issued)]
        if let expires { claims["exp"] = Int(now + expires) }
        return claims
    }
}

/// The rules a customer token is held to, whatever the gateway does with it.
@Suite struct CustomerTokenTests {
    static let secret = CustomerTokenSecret(id: "ctk_a", secret: "cts_first_secret_for_tests_0123456789abcdefgh")
    static let other = CustomerTokenSecret(id: "ctk_b", secret: "cts_other_secret_for_tests_0123456789abcdefgh")

    @Test func aMintedTokenProvesItsSubject() async throws {
        let token = try await CustomerToken.mint(subject: "alice", lifetime: 300, secret: Self.secret)
        #expect(try await CustomerTokenVerifier(secrets: [Self.secret]).subject(of: token) == "alice")
        // Either of two live secrets (a rotation) verifies it, by its kid or by trying each.
        #expect(try await CustomerTokenVerifier(secrets: [Self.other, Self.secret]).subject(of: token) == "alice")
        let withoutKid = try HandMadeToken.make(HandMadeToken.claims("alice"), secret: Self.secret.secret)
        #expect(try await CustomerTokenVerifier(secrets: [Self.other, Self.secret]).subject(of: withoutKid) == "alice")
    }

    /// One broken rule: the subject, `iat` and `exp` (seconds from now), whether another secret signs, and the
    /// refusal.
    struct Broken: Sendable, CustomTestStringConvertible {
        var subject = "alice"
        var issued: TimeInterval = 0
        var expires: TimeInterval? = 300
        var otherSecret = false
        var rejection: CustomerTokenRejection
        var testDescription: String { "\(rejection)" }
    }

    @Test(arguments: [
        Broken(expires: -5, rejection: .expired),
        Broken(expires: nil, rejection: .missingExpiry),
        Broken(expires: 25 * 3600, rejection: .lifetimeTooLong),
        Broken(issued: -3600, expires: 23.5 * 3600, rejection: .lifetimeTooLong),
        Broken(issued: 600, expires: 900, rejection: .notYetValid),
        Broken(subject: "", rejection: .malformed),
        Broken(otherSecret: true, rejection: .badSignature),
    ])
    func tokensBreakingARuleAreRefused(_ broken: Broken) async throws {
        let token = try HandMadeToken.make(
            HandMadeToken.claims(broken.subject, issued: broken.issued, expires: broken.expires),
            secret: broken.otherSecret ? Self.other.secret : Self.secret.secret)
        await #expect(throws: broken.rejection) {
            try await CustomerTokenVerifier(secrets: [Self.secret]).subject(of: token)
        }
    }

    @Test func registeredPublicKeysVerifyES256TokensAndNothingElse() async throws {
        let privateKey = P256.Signing.PrivateKey()
        let registered = CustomerTokenPublicKey(id: "cpk_a", pem: privateKey.publicKey.pemRepresentation)
        #expect(CustomerTokenPublicKey.isValid(pem: registered.pem))
        #expect(
            !CustomerTokenPublicKey.isValid(pem: privateKey.pemRepresentation.replacingOccurrences(of: "x", with: "y")))
        #expect(!CustomerTokenPublicKey.isValid(pem: "not a key"))
        let verifier = CustomerTokenVerifier(keys: CustomerTokenKeys(secrets: [Self.secret], publicKeys: [registered]))
        let token = try await CustomerToken.mint(
            subject: "alice", lifetime: 300, privateKeyPEM: privateKey.pemRepresentation, keyID: registered.id)
        #expect(try await verifier.subject(of: token) == "alice")
        let withoutKid = try await CustomerToken.mint(
            subject: "alice", lifetime: 300, privateKeyPEM: privateKey.pemRepresentation, keyID: "")
        #expect(try await verifier.subject(of: withoutKid) == "alice")
        // Another private key, or an HS256 token keyed with the public key's text (algorithm confusion): refused.
        let stranger = try await CustomerToken.mint(
            subject: "alice", lifetime: 300, privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation,
            keyID: registered.id)
        await #expect(throws: CustomerTokenRejection.badSignature) { try await verifier.subject(of: stranger) }
        let confused = try HandMadeToken.make(
            HandMadeToken.claims("alice"), secret: registered.pem,
            header: ["alg": "HS256", "typ": "JWT", "kid": registered.id])
        // (ECDSA cannot even read an HMAC's 32 bytes as a signature: refused, whatever the reason given.)
        await #expect(throws: CustomerTokenRejection.self) { try await verifier.subject(of: confused) }
        // The same time rules apply.
        let endless = try await CustomerToken.mint(
            subject: "alice", lifetime: 48 * 3600, privateKeyPEM: privateKey.pemRepresentation, keyID: registered.id)
        await #expect(throws: CustomerTokenRejection.lifetimeTooLong) { try await verifier.subject(of: endless) }
    }

    @Test func malformedTokensAndAppsWithoutSecretsAreRefused() async throws {
        let verifier = CustomerTokenVerifier(secrets: [Self.secret])
        for token in ["", "abc", "a.b", "a.b.c", "a.b.c.d", String(repeating: "a", count: 5000)] {
            await #expect(throws: CustomerTokenRejection.malformed) { try await verifier.subject(of: token) }
        }
        // `alg: none` with an empty signature is not a signature.
        let unsigned = try HandMadeToken.make(
            HandMadeToken.claims("alice"), secret: "", header: ["alg": "none"])
        let parts = unsigned.split(separator: ".")
        await #expect(throws: CustomerTokenRejection.self) {
            try await verifier.subject(of: "\(parts[0]).\(parts[1]).")
        }
        let token = try await CustomerToken.mint(subject: "alice", lifetime: 300, secret: Self.secret)
        await #expect(throws: CustomerTokenRejection.noSecret) {
            try await CustomerTokenVerifier(secrets: []).subject(of: token)
        }
    }
}
