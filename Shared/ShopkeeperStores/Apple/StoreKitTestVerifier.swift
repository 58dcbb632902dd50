import Crypto
import Foundation
import X509

/// Verifies the JWS that Xcode's StoreKit Testing signs (environment `Xcode`, and `LocalTesting`): not Apple's
/// chain but one self-signed certificate of Xcode's ("StoreKit Testing in Xcode"), which the developer exports from
/// the StoreKit configuration editor and uploads for the app.
///
/// The rules: `alg` ES256, `x5c` of exactly one certificate that is the uploaded one (the same DER bytes) or is
/// signed by the uploaded one's key, and a signature by that certificate's P-256 key. No validity window is checked:
/// the certificate is the developer's own and trusted because they uploaded it. Whether such a proof may be accepted
/// at all (never for an app in production mode) and whether it belongs to the app are the caller's questions.
package enum StoreKitTestVerifier {
    /// Verifies `token` against `certificate` and decodes its payload (Apple's JSON, fractional dates included).
    package static func verify<Payload: AppleSignedPayload>(
        _ token: String, trusting certificate: Certificate, as _: Payload.Type = Payload.self
    ) throws(AppleSignedDataError) -> Payload {
        guard token.utf8.count <= AppleSignedDataVerifier.maximumLength else {
            throw .tooLarge(limit: AppleSignedDataVerifier.maximumLength)
        }
        guard let jws = CompactJWS(token) else { throw .malformed("not a compact JWS") }
        guard jws.header.alg == "ES256" else { throw .unsupportedAlgorithm(jws.header.alg) }
        guard let x5c = jws.header.x5c else { throw .invalidCertificateChain("x5c is missing") }
        guard x5c.count == 1, let der = Data(base64Encoded: x5c[0]) else {
            throw .invalidCertificateChain("expected the one StoreKit test certificate, found \(x5c.count)")
        }
        let signer: Certificate
        do {
            signer = try Certificate(derEncoded: [UInt8](der))
        } catch {
            throw .invalidCertificateChain("the certificate does not parse")
        }
        guard signer == certificate || certificate.publicKey.isValidSignature(signer.signature, for: signer) else {
            throw .untrustedChain("the certificate is not the app's StoreKit test certificate")
        }
        guard let key = P256.Signing.PublicKey(signer.publicKey) else {
            throw .invalidCertificateChain("the certificate's key is not P-256")
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, for: AppleSignedDataVerifier.digest(of: jws.signingInput))
        else { throw .invalidSignature }
        do {
            return try AppleJSON.decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw .malformed("the payload is not the expected JSON")
        }
    }

    /// Decodes `token` without checking any signature or certificate, as Apple's App Store Server Library does for
    /// the `Xcode` and `LocalTesting` environments (their data is not signed by the App Store, so its
    /// `SignedDataVerifier` skips the chain and the signature): for apps that chose to accept such data
    /// (`accept_local_testing`). Any `alg` (`none` too) and any signature, or none (`header.payload.`); the payload
    /// must still be the expected JSON. Which environment it claims is the caller's question.
    package static func decodeUnverified<Payload: AppleSignedPayload>(
        _ token: String, as _: Payload.Type = Payload.self
    ) throws(AppleSignedDataError) -> Payload {
        guard token.utf8.count <= AppleSignedDataVerifier.maximumLength else {
            throw .tooLarge(limit: AppleSignedDataVerifier.maximumLength)
        }
        guard let jws = CompactJWS(token) else { throw .malformed("not a compact JWS") }
        do {
            return try AppleJSON.decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw .malformed("the payload is not the expected JSON")
        }
    }

    /// A StoreKit test certificate as a developer pastes it: PEM, or base64 of the DER (`.cer`) file.
    package static func certificate(pemOrBase64DER text: String) -> Certificate? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN") {
            return try? Certificate(pemEncoded: trimmed)
        }
        let compact = trimmed.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: compact) else { return nil }
        return try? Certificate(derEncoded: [UInt8](der))
    }
}
