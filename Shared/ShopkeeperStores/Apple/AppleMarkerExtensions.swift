import SwiftASN1
import X509

/// The certificate extensions Apple puts on the certificates that sign App Store data.
///
/// A chain that signs a StoreKit 2 transaction or an app receipt must carry both: Apple's
/// intermediate ("Apple Worldwide Developer Relations") marks itself with ``intermediate`` and the
/// signing leaf with ``receiptSigning``. Their value is an ASN.1 `NULL`.
package enum AppleMarkerExtension {
    /// Apple's marker on the intermediate certificate (1.2.840.113635.100.6.2.1).
    package static let intermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    /// Apple's receipt-signing marker on the leaf certificate (1.2.840.113635.100.6.11.1).
    package static let receiptSigning: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// The extension to put on a certificate, marked with `oid` (the value is DER `NULL`).
    package static func extensionValue(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    /// Whether `certificate` carries the marker `oid`.
    package static func isPresent(_ oid: ASN1ObjectIdentifier, in certificate: Certificate) -> Bool {
        certificate.extensions.contains { $0.oid == oid }
    }
}

/// The verifier policy Apple's own libraries apply to App Store signing chains: exactly leaf,
/// intermediate and root, with Apple's marker extensions on the leaf and the intermediate.
package struct AppleMarkerPolicy: VerifierPolicy {
    package let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    package init() {}

    package func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "App Store chains have exactly three certificates, got \(chain.count)")
        }
        guard AppleMarkerExtension.isPresent(AppleMarkerExtension.intermediate, in: chain[1]) else {
            return .failsToMeetPolicy(reason: "The intermediate certificate lacks Apple's intermediate marker")
        }
        guard AppleMarkerExtension.isPresent(AppleMarkerExtension.receiptSigning, in: chain[0]) else {
            return .failsToMeetPolicy(reason: "The leaf certificate lacks Apple's receipt-signing marker")
        }
        return .meetsPolicy
    }
}
