import Crypto
import Foundation
import ShopkeeperStores
import Testing
import _CryptoExtras

/// The check of Pub/Sub push OIDC tokens: only a token signed by a published key, issued by Google, for this
/// endpoint's audience, from an accepted push account, and not expired, authenticates a push.
@Suite struct GooglePushTokenVerifierTests {
    static let audience = "https://shop.example.com/v1/notifications/google"
    static let account = "rtdn-push@example.iam.gserviceaccount.com"

    /// A signing key published in the JWKS, and another one that is not.
    struct Keys {
        let published: RS256Signer
        let unpublished: RS256Signer
        let jwks: String

        init() throws {
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            published = try RS256Signer(key: key, keyID: "published")
            // Signs with the kid of the published key, so only the signature can tell.
            unpublished = try RS256Signer(key: other, keyID: "published")
            let set = GoogleJSONWebKeySet(keys: [
                try GoogleJSONWebKeySet.Key(publicKey: key.publicKey, kid: "published")
            ])
            jwks = String(decoding: try JSONEncoder().encode(set), as: UTF8.self)
        }
    }

    static let keys: Keys = {
        do { return try Keys() } catch { fatalError("cannot make test keys: \(error)") }
    }()

    static func claims(
        iss: String = "https://accounts.google.com", aud: String = audience, email: String? = account,
        emailVerified: Bool? = true, issuedSecondsAgo: Int64 = 10, lifetime: Int64 = 3600
    ) -> GooglePushTokenClaims {
        let iat = Int64(Date().timeIntervalSince1970) - issuedSecondsAgo
        return GooglePushTokenClaims(
            iss: iss, aud: aud, azp: "1234", email: email, emailVerified: emailVerified, sub: "1234", iat: iat,
            exp: iat + lifetime)
    }

    func verifier(emails: Set<String> = [account]) -> GooglePushTokenVerifier {
        GooglePushTokenVerifier(jwksJSON: Self.keys.jwks, audience: Self.audience, emails: emails)
    }

    @Test func aTokenGoogleWouldSendIsAccepted() async throws {
        let token = try Self.keys.published.sign(Self.claims())
        let claims = try await verifier().verify(token)
        #expect(claims.email == Self.account)
        // Without a list of accounts, any Google-signed token for the audience is accepted.
        _ = try await verifier(emails: []).verify(try Self.keys.published.sign(Self.claims(email: "other@x.com")))
        // Google also writes its issuer without the scheme.
        _ = try await verifier().verify(try Self.keys.published.sign(Self.claims(iss: "accounts.google.com")))
    }

    /// Each case is a token that must be refused, and why.
    static let refused: [(String, @Sendable () throws -> String)] = [
        ("another audience", { try keys.published.sign(claims(aud: "https://elsewhere.example.com/push")) }),
        ("another account", { try keys.published.sign(claims(email: "someone@example.com")) }),
        ("an unverified email", { try keys.published.sign(claims(emailVerified: false)) }),
        ("no email", { try keys.published.sign(claims(email: nil)) }),
        ("expired", { try keys.published.sign(claims(issuedSecondsAgo: 7200)) }),
        ("not issued by Google", { try keys.published.sign(claims(iss: "https://evil.example.com")) }),
        ("signed by an unpublished key", { try keys.unpublished.sign(claims()) }),
        (
            "a payload changed after signing",
            {
                let parts = try keys.published.sign(claims()).split(separator: ".").map(String.init)
                let forged = try JSONEncoder().encode(claims(aud: "https://elsewhere.example.com/push"))
                let payload = forged.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                return [parts[0], payload, parts[2]].joined(separator: ".")
            }
        ),
        ("not a token", { "not-a-jwt" }),
        ("an empty token", { "" }),
    ]

    @Test(arguments: 0..<refused.count)
    func aTokenIsRefused(_ index: Int) async throws {
        let (why, make) = Self.refused[index]
        let token = try make()
        await #expect(throws: (any Error).self, "\(why)") {
            _ = try await verifier().verify(token)
        }
    }
}
