import Foundation
import JWTKit

/// The claims of a customer token: who it acts for (`sub`, the app user id), when it was made (`iat`) and when it
/// stops working (`exp`).
///
/// `exp` and `iat` decode as optional so that a token without them is refused with a precise reason by
/// ``CustomerTokenVerifier`` rather than as unreadable; the checks live there, against an injected clock.
package struct CustomerTokenClaims: JWTPayload, Equatable {
    package var sub: SubjectClaim
    package var iat: IssuedAtClaim?
    package var exp: ExpirationClaim?

    package init(subject: String, issuedAt: Date, expires: Date) {
        sub = SubjectClaim(value: subject)
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: expires)
    }

    /// Time checks need the verifier's clock; the signature is all JWTKit checks.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
