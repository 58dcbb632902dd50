import Crypto
import Foundation
import HTTPTypes
import ShopkeeperStores

/// Checks an App Store Server API bearer token exactly as Apple does, and refuses every failure alike.
///
/// The token must be a compact JWS with `alg` ES256, `typ` JWT and the `kid` of a key this sandbox issued, signed by
/// that key; its claims must name the key's issuer (`iss`), `aud` `appstoreconnect-v1`, a `bid` the issuer has a key
/// for, an `iat` not in the future (60 s of clock skew allowed) and an `exp` that has not passed and lies at most an
/// hour after `iat`. Apple's own App Store Server Library sends no `iat`: without one, `exp` must lie at most an hour
/// (and the clock skew) from now.
struct AppleBearerAuthenticator: Sendable {
    /// How far in the future `iat` may lie.
    static let allowedClockSkewSeconds: Int64 = 60

    let store: SandboxStore

    /// The bundle id the caller is authorized for.
    func authenticate(_ headers: HTTPFields, now: Date = Date()) async throws(AppleAPIError) -> String {
        guard let signed = await Self.signedClaims(headers, store: store, as: AppStoreServerAPIClaims.self) else {
            throw .unauthorized
        }
        let (key, claims) = signed
        let seconds = Int64(now.timeIntervalSince1970)
        let lifetimeStart = claims.iat ?? seconds
        guard claims.iss == key.issuerId, claims.aud == AppStoreServerAPIClaims.audience,
            lifetimeStart <= seconds + Self.allowedClockSkewSeconds, claims.exp > seconds, claims.exp > lifetimeStart,
            claims.exp - lifetimeStart <= AppStoreServerAPIClaims.maximumLifetimeSeconds,
            await store.bundleIds(ofIssuer: key.issuerId).contains(claims.bid)
        else { throw .unauthorized }
        return claims.bid
    }

    /// The claims of the `Authorization: Bearer` token and the sandbox-issued key that signed it, when the token is a
    /// compact JWS with `alg` ES256, `typ` JWT and the `kid` of that key, with a valid signature: the part Apple's
    /// App Store Server API and App Store Connect API check alike.
    static func signedClaims<Claims: Decodable>(_ headers: HTTPFields, store: SandboxStore, as: Claims.Type) async
        -> (AppleAPIKeyRecord, Claims)?
    {
        guard let authorization = headers[.authorization], authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer ",
            let jws = CompactJWS(String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)),
            jws.header.alg == "ES256", jws.header.typ == "JWT", let keyID = jws.header.kid,
            let key = await store.appleKey(id: keyID),
            let publicKey = try? P256.Signing.PublicKey(pemRepresentation: key.publicKey),
            jws.hasValidES256Signature(by: publicKey),
            let claims = jws.decodedPayload(as: Claims.self)
        else { return nil }
        return (key, claims)
    }
}
