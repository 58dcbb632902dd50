import Crypto
import Foundation
import JWTKit
import NIOConcurrencyHelpers
@_spi(FixedExpiryValidationTime) import X509

/// Verifies the JWS Apple signs StoreKit 2 data with (transactions, renewal info, notifications).
///
/// The rules are Apple's: `alg` ES256, exactly three certificates in `x5c`, Apple's marker
/// extensions on the leaf and the intermediate, a chain to a *configured* trusted root (the bytes of
/// `x5c[2]` are never trusted themselves) validated at the payload's `signedDate`, and a signature by
/// the leaf's key. A chain that passed is cached under its header, so verifying another transaction
/// signed by the same chain costs one signature check. Whether the payload belongs to the right app
/// and environment is the caller's question.
package struct AppleSignedDataVerifier: Sendable {
    /// App Store JWS are about 4 KB; anything far longer is refused before parsing.
    package static let maximumLength = 32 * 1024

    private let chainVerifier: X5CVerifier
    private let cache: VerifiedChainCache

    /// - Parameters:
    ///   - trustedRoots: The roots a chain must lead to (Apple Root CA - G3 in production).
    ///   - cacheCapacity: How many verified chains to remember.
    package init(trustedRoots: [Certificate], cacheCapacity: Int = 64) throws {
        self.chainVerifier = try X5CVerifier(rootCertificates: trustedRoots)
        self.cache = VerifiedChainCache(capacity: cacheCapacity)
    }

    /// Verifies `token` and decodes its payload.
    package func verify<Payload: AppleSignedPayload>(
        _ token: String, as _: Payload.Type = Payload.self
    ) async throws(AppleSignedDataError) -> Payload {
        guard token.utf8.count <= Self.maximumLength else {
            throw .tooLarge(limit: Self.maximumLength)
        }
        guard let segments = CompactJWS.Segments(token) else {
            throw .malformed("not a compact JWS")
        }
        // A cached header passed every check, `alg` included: only the payload and signature need decoding.
        let headerKey = String(segments.header)
        let cached = cache[headerKey]
        var header: JWSHeader?
        if cached == nil {
            header = JWSHeader(segment: segments.header)
            guard let header else { throw .malformed("the header is not base64url JSON") }
            guard header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        }
        guard let payloadBytes = Base64URL.decode(segments.payload),
            let signatureBytes = Base64URL.decode(segments.signature)
        else { throw .malformed("a segment is not base64url") }
        let payload: Payload
        do {
            // Apple's JSON: dates with fractional milliseconds (Xcode's) decode too.
            payload = try AppleJSON.decode(Payload.self, from: Data(payloadBytes))
        } catch {
            throw .malformed("the payload is not the expected JSON")
        }
        // Without a signing date (`signedDate`; an app transaction's `receiptCreationDate`), the chain is checked at
        // the current time, as Apple's library does.
        let signedDate = payload.signedDate.map { Date(appleMilliseconds: $0) } ?? Date()

        let chain: VerifiedChain
        if let cached {
            chain = cached
        } else if let header {
            chain = try await verifiedChain(header, key: headerKey, at: signedDate)
        } else {
            throw .malformed("the header is not base64url JSON")
        }
        guard chain.validity.contains(signedDate) else {
            throw .certificateNotValidAtSignedDate
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            chain.leafKey.isValidSignature(signature, for: Self.digest(of: segments.signingInput))
        else {
            throw .invalidSignature
        }
        return payload
    }

    /// SHA-256 of `text`'s UTF-8 bytes, hashed in place when the string is contiguous (it is, for a `String`
    /// received from JSON).
    static func digest(of text: Substring) -> SHA256.Digest {
        if let digest = text.utf8.withContiguousStorageIfAvailable({ SHA256.hash(data: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return SHA256.hash(data: Array(text.utf8))
    }

    /// The chain `header` names, verified now and cached under `key` (the header segment).
    private func verifiedChain(_ header: JWSHeader, key: String, at signedDate: Date)
        async throws(AppleSignedDataError) -> VerifiedChain
    {
        guard let x5c = header.x5c else {
            throw .invalidCertificateChain("x5c is missing")
        }
        guard x5c.count == 3 else {
            throw .invalidCertificateChain("expected 3 certificates, found \(x5c.count)")
        }
        let certificates: [Certificate]
        do {
            certificates = try x5c.map { encoded in
                guard let der = Data(base64Encoded: encoded) else { throw AppleSignedDataError.malformed("x5c") }
                return try Certificate(derEncoded: [UInt8](der))
            }
        } catch {
            throw .invalidCertificateChain("a certificate does not parse")
        }
        guard AppleMarkerExtension.isPresent(AppleMarkerExtension.receiptSigning, in: certificates[0]) else {
            throw .missingMarkerExtension("leaf")
        }
        guard AppleMarkerExtension.isPresent(AppleMarkerExtension.intermediate, in: certificates[1]) else {
            throw .missingMarkerExtension("intermediate")
        }
        let validity = VerifiedChain.validity(of: certificates)
        guard validity.contains(signedDate) else {
            throw .certificateNotValidAtSignedDate
        }
        let result: CertificateValidationResult
        do {
            result = try await chainVerifier.verifyChain(certificates: certificates) {
                AppleMarkerPolicy()
                RFC5280Policy(fixedExpiryValidationTime: signedDate)
            }
        } catch {
            throw .untrustedChain("\(error)")
        }
        guard case .validCertificate(let path) = result, path.count == 3 else {
            throw .untrustedChain("\(result)")
        }
        guard let leafKey = P256.Signing.PublicKey(certificates[0].publicKey) else {
            throw .invalidCertificateChain("the leaf key is not P-256")
        }
        // The validity that matters is the one of the path that was validated, root included.
        let chain = VerifiedChain(leafKey: leafKey, validity: VerifiedChain.validity(of: Array(path)))
        cache[key] = chain
        return chain
    }
}

/// A chain that passed every check, reduced to what verifying another signature needs.
struct VerifiedChain: Sendable {
    var leafKey: P256.Signing.PublicKey
    /// When every certificate of the chain is valid.
    var validity: ClosedRange<Date>

    static func validity(of certificates: [Certificate]) -> ClosedRange<Date> {
        let notBefore = certificates.map(\.notValidBefore).max() ?? .distantFuture
        let notAfter = certificates.map(\.notValidAfter).min() ?? .distantPast
        return notBefore <= notAfter ? notBefore...notAfter : Date.distantFuture...Date.distantFuture
    }
}

/// A small bounded map from a JWS header to its verified chain, shared by concurrent verifications.
final class VerifiedChainCache: Sendable {
    private let chains = NIOLockedValueBox<[String: VerifiedChain]>([:])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    subscript(header: String) -> VerifiedChain? {
        get { chains.withLockedValue { $0[header] } }
        set {
            chains.withLockedValue { chains in
                if chains.count >= capacity { chains.removeAll(keepingCapacity: true) }
                chains[header] = newValue
            }
        }
    }
}
