import SwiftASN1
import X509

/// The parts of a PKCS#7 / CMS `SignedData` an app receipt needs, read with BER because genuine App Store
/// receipts use indefinite lengths and segmented OCTET STRINGs.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OBJECT IDENTIFIER, content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version INTEGER, digestAlgorithms SET OF AlgorithmIdentifier,
///     encapContentInfo SEQUENCE { eContentType OBJECT IDENTIFIER, eContent [0] EXPLICIT OCTET STRING },
///     certificates [0] IMPLICIT CertificateSet OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET OF SignerInfo }
/// SignerInfo ::= SEQUENCE { version INTEGER, sid SignerIdentifier, digestAlgorithm AlgorithmIdentifier,
///     signedAttrs [0] IMPLICIT SET OF Attribute OPTIONAL, signatureAlgorithm AlgorithmIdentifier,
///     signature OCTET STRING, unsignedAttrs [1] IMPLICIT OPTIONAL }
/// ```
///
/// Nothing here is trusted: it is attacker-controlled until ``AppReceiptReader`` has checked the signature and
/// the chain, so every step is bounds-checked and fails with ``AppReceiptError/malformed(_:)``.
struct ReceiptSignedData: Sendable {
    static let signedDataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let dataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    static let contentTypeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 3]
    static let messageDigestAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 4]
    /// More certificates than any App Store receipt carries; bounds the chain builder's work.
    static let maximumCertificates = 16

    /// How the signer names its certificate.
    enum SignerIdentifier: Sendable {
        case issuerAndSerialNumber(DistinguishedName, [UInt8])
        case subjectKeyIdentifier([UInt8])
    }

    /// The encapsulated content: the receipt payload.
    var content: [UInt8]
    var certificates: [Certificate]
    var signer: SignerIdentifier
    var digestAlgorithm: ASN1ObjectIdentifier
    var signatureAlgorithm: ASN1ObjectIdentifier
    /// The DER the signature covers when signed attributes are present (RFC 5652 §5.4: the attributes re-tagged
    /// as a SET), with the content-type and message-digest attributes they carry.
    var signedAttributes: [UInt8]?
    var contentTypeAttribute: ASN1ObjectIdentifier?
    var messageDigest: [UInt8]?
    var signature: [UInt8]

    init(berEncoded bytes: [UInt8]) throws(AppReceiptError) {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw .malformed("not ASN.1: \(error)")
        }
        let contentInfo = try Self.children(root, .sequence, "ContentInfo")
        guard contentInfo.count >= 2, try Self.oid(contentInfo[0], "contentType") == Self.signedDataType else {
            throw .malformed("not a PKCS#7 SignedData container")
        }
        let signedData = try Self.children(try Self.explicit(contentInfo[1]), .sequence, "SignedData")
        guard signedData.count >= 4, signedData[0].identifier == .integer else {
            throw .malformed("SignedData is truncated")
        }
        var digestAlgorithms: [ASN1ObjectIdentifier] = []
        for node in try Self.children(signedData[1], .set, "digestAlgorithms") {
            digestAlgorithms.append(try Self.algorithm(node, "digestAlgorithms"))
        }

        let encapsulated = try Self.children(signedData[2], .sequence, "encapContentInfo")
        guard encapsulated.count == 2, try Self.oid(encapsulated[0], "eContentType") == Self.dataType else {
            throw .malformed("the receipt has no attached id-data content")
        }
        let eContent = try Self.explicit(encapsulated[1])
        guard eContent.identifier == .octetString else { throw .malformed("eContent is not an OCTET STRING") }
        content = try ReceiptAttribute.octets(eContent, what: "eContent")

        certificates = []
        for node in signedData[3..<(signedData.count - 1)] where node.identifier == Self.tag(0) {
            for element in try Self.children(node, Self.tag(0), "certificates") where element.identifier == .sequence {
                do {
                    certificates.append(try Certificate(derEncoded: Array(element.encodedBytes)))
                } catch {
                    throw .malformed("an embedded certificate does not parse: \(error)")
                }
            }
        }
        guard certificates.count <= Self.maximumCertificates else {
            throw .malformed("\(certificates.count) embedded certificates")
        }

        let signerInfos = try Self.children(signedData[signedData.count - 1], .set, "signerInfos")
        guard signerInfos.count == 1 else { throw .malformed("\(signerInfos.count) signer infos, expected 1") }
        let fields = try Self.children(signerInfos[0], .sequence, "SignerInfo")
        guard fields.count >= 5 else { throw .malformed("SignerInfo has \(fields.count) fields") }
        signer = try Self.signerIdentifier(fields[1])
        digestAlgorithm = try Self.algorithm(fields[2], "digestAlgorithm")
        guard digestAlgorithms.contains(digestAlgorithm) else {
            throw .malformed("the signer's digest algorithm is not among the SignedData's")
        }
        var index = 3
        if fields[index].identifier == Self.tag(0) {
            let attributes = fields[index]
            var reTagged = Array(attributes.encodedBytes)
            guard reTagged.first == 0xA0 else { throw .malformed("signed attributes are not DER") }
            reTagged[0] = 0x31
            signedAttributes = reTagged
            for attribute in try Self.children(attributes, Self.tag(0), "signedAttrs") {
                let parts = try Self.children(attribute, .sequence, "Attribute")
                guard parts.count == 2 else { throw .malformed("a signed attribute has \(parts.count) fields") }
                let values = try Self.children(parts[1], .set, "attribute values")
                guard let value = values.first, values.count == 1 else {
                    throw .malformed("a signed attribute has \(values.count) values")
                }
                switch try Self.oid(parts[0], "attribute type") {
                case Self.contentTypeAttribute:
                    contentTypeAttribute = try Self.oid(value, "content-type attribute")
                case Self.messageDigestAttribute:
                    guard value.identifier == .octetString else { throw .malformed("message digest is not octets") }
                    messageDigest = try ReceiptAttribute.octets(value, what: "message digest")
                default:
                    break
                }
            }
            index += 1
        }
        guard index + 1 < fields.count else { throw .malformed("SignerInfo is truncated") }
        signatureAlgorithm = try Self.algorithm(fields[index], "signatureAlgorithm")
        guard fields[index + 1].identifier == .octetString else { throw .malformed("signature is not octets") }
        signature = try ReceiptAttribute.octets(fields[index + 1], what: "signature")
    }

    /// The embedded certificate the signer identifies.
    func signerCertificate() -> Certificate? {
        switch signer {
        case .issuerAndSerialNumber(let issuer, let serial):
            certificates.first { certificate in
                certificate.issuer == issuer && Self.unsigned(Array(certificate.serialNumber.bytes)) == serial
            }
        case .subjectKeyIdentifier(let identifier):
            certificates.first { certificate in
                (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier.elementsEqual(identifier) == true
            }
        }
    }

    // MARK: Bounds-checked navigation

    private static func tag(_ number: UInt) -> ASN1Identifier {
        ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific)
    }

    private static func children(
        _ node: ASN1Node, _ identifier: ASN1Identifier, _ what: String
    ) throws(AppReceiptError) -> [ASN1Node] {
        guard node.identifier == identifier, case .constructed(let nodes) = node.content else {
            throw .malformed("\(what): expected constructed \(identifier), found \(node.identifier)")
        }
        return Array(nodes)
    }

    /// The single node inside an EXPLICIT `[0]` tag.
    private static func explicit(_ node: ASN1Node) throws(AppReceiptError) -> ASN1Node {
        let inner = try children(node, tag(0), "[0] EXPLICIT")
        guard let first = inner.first, inner.count == 1 else { throw .malformed("[0] EXPLICIT holds \(inner.count)") }
        return first
    }

    private static func oid(_ node: ASN1Node, _ what: String) throws(AppReceiptError) -> ASN1ObjectIdentifier {
        do {
            return try ASN1ObjectIdentifier(berEncoded: node)
        } catch {
            throw .malformed("\(what) is not an OBJECT IDENTIFIER")
        }
    }

    /// The algorithm OID of an `AlgorithmIdentifier`; parameters are not used by the algorithms supported.
    private static func algorithm(_ node: ASN1Node, _ what: String) throws(AppReceiptError) -> ASN1ObjectIdentifier {
        let parts = try children(node, .sequence, what)
        guard let first = parts.first, parts.count <= 2 else { throw .malformed("\(what) has \(parts.count) parts") }
        return try oid(first, what)
    }

    private static func signerIdentifier(_ node: ASN1Node) throws(AppReceiptError) -> SignerIdentifier {
        if node.identifier == tag(0), case .primitive(let bytes) = node.content {
            return .subjectKeyIdentifier(Array(bytes))
        }
        let parts = try children(node, .sequence, "IssuerAndSerialNumber")
        guard parts.count == 2, parts[1].identifier == .integer, case .primitive(let serial) = parts[1].content else {
            throw .malformed("IssuerAndSerialNumber is malformed")
        }
        do {
            let issuer = try DistinguishedName(derEncoded: parts[0])
            return .issuerAndSerialNumber(issuer, unsigned(Array(serial)))
        } catch {
            throw .malformed("the signer's issuer does not parse")
        }
    }

    /// A serial number without the leading zeros that keep a DER INTEGER positive, so serials compare by value.
    private static func unsigned(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }
}
