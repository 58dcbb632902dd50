import Crypto
import Foundation
import SwiftASN1
import X509

/// Makes the certificates of a ``SigningChain`` with the extensions of Apple's App Store chain.
///
/// | certificate | Apple's | extensions (critical ones marked) |
/// | --- | --- | --- |
/// | root | Apple Root CA - G3 | Subject Key Identifier; Basic Constraints CA (critical); Key Usage keyCertSign, cRLSign (critical) |
/// | intermediate | Apple Worldwide Developer Relations CA - G6 | Authority Key Identifier (the root's key id); Authority Information Access (OCSP); Basic Constraints CA, path length 0 (critical); Subject Key Identifier; Key Usage keyCertSign, cRLSign (critical); Apple's marker 1.2.840.113635.100.6.2.1 (`NULL`) |
/// | leaf | App Store receipt signing | Basic Constraints not a CA (critical); Authority Key Identifier (the intermediate's key id); Authority Information Access (CA issuers, OCSP); Subject Key Identifier; Key Usage digitalSignature (critical); Apple's marker 1.2.840.113635.100.6.11.1 (`NULL`) |
///
/// Apple's intermediate also names a CRL distribution point and its leaf a certificate policy; nothing verifies
/// those offline, so they are left out. The access locations name `.invalid` hosts: nothing is there to ask, and
/// online checks (OCSP) are for Apple's real chain only.
enum CertificateFactory {
    /// Where the sandbox's certificates say their status could be asked (never answered: see above).
    static let ocspLocation = "http://ocsp.sandbox.shopkeeper.invalid/ocsp03"
    /// Where the leaf says its issuer can be fetched.
    static let issuerLocation = "http://certs.sandbox.shopkeeper.invalid/wwdr.der"

    /// A self-signed root.
    static func root(
        name: String, key: P256.Signing.PrivateKey, validity: ClosedRange<Date>
    ) throws -> Certificate {
        let subject = try distinguishedName(name)
        let extensions = try Certificate.Extensions {
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        }
        return try sign(
            subject: subject, key: key, issuer: subject, issuerKey: key, validity: validity, extensions: extensions)
    }

    /// An intermediate issued by `issuer`, marked with `marker` (Apple's intermediate marker) unless `nil`.
    static func intermediate(
        name: String, key: P256.Signing.PrivateKey, issuer: Certificate, issuerKey: P256.Signing.PrivateKey,
        validity: ClosedRange<Date>, marker: ASN1ObjectIdentifier?
    ) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            try authorityKeyIdentifier(of: issuer)
            AuthorityInformationAccess([
                .init(method: .ocspServer, location: .uniformResourceIdentifier(ocspLocation))
            ])
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            if let marker {
                AppleMarkerExtension.extensionValue(marker)
            }
        }
        return try sign(
            subject: try distinguishedName(name), key: key, issuer: issuer.subject, issuerKey: issuerKey,
            validity: validity, extensions: extensions)
    }

    /// A signing leaf issued by `issuer`, marked with `marker` (Apple's receipt-signing marker) unless `nil`.
    static func leaf(
        name: String, key: P256.Signing.PrivateKey, issuer: Certificate, issuerKey: P256.Signing.PrivateKey,
        validity: ClosedRange<Date>, marker: ASN1ObjectIdentifier?
    ) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            try authorityKeyIdentifier(of: issuer)
            AuthorityInformationAccess([
                .init(method: .issuingCA, location: .uniformResourceIdentifier(issuerLocation)),
                .init(method: .ocspServer, location: .uniformResourceIdentifier(ocspLocation)),
            ])
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            Critical(KeyUsage(digitalSignature: true))
            if let marker {
                AppleMarkerExtension.extensionValue(marker)
            }
        }
        return try sign(
            subject: try distinguishedName(name), key: key, issuer: issuer.subject, issuerKey: issuerKey,
            validity: validity, extensions: extensions)
    }

    /// The Authority Key Identifier of a certificate `issuer` signs: its Subject Key Identifier (or, for an issuer
    /// without one, the RFC 5280 hash of its key).
    private static func authorityKeyIdentifier(of issuer: Certificate) throws -> AuthorityKeyIdentifier {
        let identifier =
            try issuer.extensions.subjectKeyIdentifier?.keyIdentifier
            ?? SubjectKeyIdentifier(hash: issuer.publicKey).keyIdentifier
        return AuthorityKeyIdentifier(keyIdentifier: identifier)
    }

    private static func sign(
        subject: DistinguishedName, key: P256.Signing.PrivateKey, issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey, validity: ClosedRange<Date>, extensions: Certificate.Extensions
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound,
            issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
    }

    private static func distinguishedName(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName {
            CommonName(commonName)
            OrganizationalUnitName("Shopkeeper Sandbox Store")
            OrganizationName("Shopkeeper")
            CountryName("US")
        }
    }
}
