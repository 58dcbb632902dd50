/// Why an app receipt was refused. Each case has a stable machine ``code``; the associated text is for
/// people and logs and may change.
package enum AppReceiptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not base64, not a PKCS#7 container, bad ASN.1, too large or truncated, or a payload whose attributes
    /// have the wrong types.
    case malformed(String)
    /// The signature does not match the content, or was not made by the key of the signing certificate.
    case invalidSignature(String)
    /// The signing certificate does not chain to one of the trusted roots.
    case untrustedChain(String)
    /// The leaf or the intermediate lacks Apple's marker extension.
    case missingMarkerExtension(String)
    /// The chain is trusted but was not valid at the receipt's creation date.
    case certificateNotValidAtSigningDate(String)

    /// The stable machine-readable code of the error, e.g. `"invalid_signature"`.
    package var code: String {
        switch self {
        case .malformed: "malformed_receipt"
        case .invalidSignature: "invalid_signature"
        case .untrustedChain: "untrusted_chain"
        case .missingMarkerExtension: "missing_marker_extension"
        case .certificateNotValidAtSigningDate: "certificate_not_valid_at_signing_date"
        }
    }

    /// The human-readable reason.
    package var reason: String {
        switch self {
        case .malformed(let reason), .invalidSignature(let reason), .untrustedChain(let reason),
            .missingMarkerExtension(let reason), .certificateNotValidAtSigningDate(let reason):
            reason
        }
    }

    package var description: String { "\(code): \(reason)" }
}
