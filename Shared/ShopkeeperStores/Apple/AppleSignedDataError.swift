/// Why a StoreKit 2 signed payload (a JWS with an `x5c` chain) was refused. Each case has a
/// stable machine-readable ``code``; none of them is worth retrying.
package enum AppleSignedDataError: Error, Equatable, CustomStringConvertible {
    /// Not a compact JWS, not base64url, not JSON, or a required field is missing.
    case malformed(String)
    /// Longer than any App Store JWS.
    case tooLarge(limit: Int)
    /// `alg` is not ES256 (`none`, HS256 and the like are refused before anything else).
    case unsupportedAlgorithm(String?)
    /// `x5c` is missing, does not hold exactly three certificates, or one does not parse.
    case invalidCertificateChain(String)
    /// The leaf or the intermediate lacks Apple's marker extension.
    case missingMarkerExtension(String)
    /// The chain does not lead to a configured trusted root.
    case untrustedChain(String)
    /// The payload's `signedDate` lies outside a certificate's validity.
    case certificateNotValidAtSignedDate
    /// The signature does not match the payload and the leaf's key.
    case invalidSignature

    package var code: String {
        switch self {
        case .malformed: "malformed_proof"
        case .tooLarge: "proof_too_large"
        case .unsupportedAlgorithm: "unsupported_algorithm"
        case .invalidCertificateChain: "invalid_certificate_chain"
        case .missingMarkerExtension: "missing_marker_extension"
        case .untrustedChain: "untrusted_chain"
        case .certificateNotValidAtSignedDate: "certificate_not_valid_at_signed_date"
        case .invalidSignature: "invalid_signature"
        }
    }

    package var description: String {
        switch self {
        case .malformed(let reason): "The signed data is malformed: \(reason)."
        case .tooLarge(let limit): "The signed data is longer than \(limit) bytes."
        case .unsupportedAlgorithm(let alg): "The signing algorithm \(alg ?? "(none)") is not ES256."
        case .invalidCertificateChain(let reason): "The x5c certificate chain is invalid: \(reason)."
        case .missingMarkerExtension(let which): "The \(which) certificate lacks Apple's marker extension."
        case .untrustedChain: "The certificate chain does not lead to a trusted root."
        case .certificateNotValidAtSignedDate: "A certificate of the chain was not valid at the payload's signedDate."
        case .invalidSignature: "The signature does not match the payload."
        }
    }
}
