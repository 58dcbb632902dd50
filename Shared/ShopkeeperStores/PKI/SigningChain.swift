import Crypto
import Foundation
import SwiftASN1
import X509

/// A root, an intermediate and a leaf, P-256, shaped like the chain Apple signs App Store data with.
///
/// The sandbox store generates one once and persists it (``pemBundle``); tests build variants of it
/// (a leaf without its marker, a chain to another root, short validity) to prove that the verifier
/// refuses each kind of forgery.
public struct SigningChain: Sendable {
    public var root: Certificate
    public var intermediate: Certificate
    public var leaf: Certificate
    public var rootKey: P256.Signing.PrivateKey
    public var intermediateKey: P256.Signing.PrivateKey
    public var leafKey: P256.Signing.PrivateKey

    /// What to put in a generated chain. The defaults make a chain Apple's rules accept.
    public struct Options: Sendable {
        /// Prefix of every certificate's common name.
        public var name: String
        public var notValidBefore: Date
        public var notValidAfter: Date
        /// Leaf validity; the chain's when `nil`.
        public var leafValidity: ClosedRange<Date>?
        public var intermediateMarker: Bool
        public var leafMarker: Bool

        public init(
            name: String = "Shopkeeper Sandbox",
            notValidBefore: Date = Date(timeIntervalSinceNow: -86_400),
            notValidAfter: Date = Date(timeIntervalSinceNow: 20 * 365 * 86_400),
            leafValidity: ClosedRange<Date>? = nil,
            intermediateMarker: Bool = true,
            leafMarker: Bool = true
        ) {
            self.name = name
            self.notValidBefore = notValidBefore
            self.notValidAfter = notValidAfter
            self.leafValidity = leafValidity
            self.intermediateMarker = intermediateMarker
            self.leafMarker = leafMarker
        }
    }

    public init(
        root: Certificate, intermediate: Certificate, leaf: Certificate,
        rootKey: P256.Signing.PrivateKey, intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Generates a new chain with fresh keys.
    public static func generate(_ options: Options = Options()) throws -> SigningChain {
        let rootKey = P256.Signing.PrivateKey()
        let root = try CertificateFactory.authority(
            name: "\(options.name) Root CA", key: rootKey, issuerName: nil, issuerKey: rootKey,
            validity: options.notValidBefore...options.notValidAfter, marker: nil
        )
        return try generate(options, under: root, rootKey: rootKey)
    }

    /// Generates an intermediate and a leaf under an existing root.
    public static func generate(
        _ options: Options, under root: Certificate, rootKey: P256.Signing.PrivateKey
    ) throws -> SigningChain {
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try CertificateFactory.authority(
            name: "\(options.name) Worldwide Developer Relations CA", key: intermediateKey,
            issuerName: root.subject, issuerKey: rootKey,
            validity: options.notValidBefore...options.notValidAfter,
            marker: options.intermediateMarker ? AppleMarkerExtension.intermediate : nil
        )
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try CertificateFactory.leaf(
            name: "\(options.name) App Store Signing", key: leafKey,
            issuerName: intermediate.subject, issuerKey: intermediateKey,
            validity: options.leafValidity ?? options.notValidBefore...options.notValidAfter,
            marker: options.leafMarker ? AppleMarkerExtension.receiptSigning : nil
        )
        return SigningChain(
            root: root, intermediate: intermediate, leaf: leaf,
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey
        )
    }

    /// The `x5c` header value: leaf, intermediate, root, each base64 DER.
    public func x5c() throws -> [String] {
        try [leaf, intermediate, root].map { certificate in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes).base64EncodedString()
        }
    }
}

/// Makes the certificates of a ``SigningChain``.
enum CertificateFactory {
    static func authority(
        name: String, key: P256.Signing.PrivateKey, issuerName: DistinguishedName?,
        issuerKey: P256.Signing.PrivateKey, validity: ClosedRange<Date>, marker: ASN1ObjectIdentifier?
    ) throws -> Certificate {
        let subject = try distinguishedName(name)
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            if let marker {
                AppleMarkerExtension.extensionValue(marker)
            }
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound,
            issuer: issuerName ?? subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
    }

    static func leaf(
        name: String, key: P256.Signing.PrivateKey, issuerName: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey, validity: ClosedRange<Date>, marker: ASN1ObjectIdentifier?
    ) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            if let marker {
                AppleMarkerExtension.extensionValue(marker)
            }
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.lowerBound, notValidAfter: validity.upperBound,
            issuer: issuerName, subject: try distinguishedName(name),
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
