import Crypto
import SwiftASN1
import X509

/// Checks the signature of a ``ReceiptSignedData`` against its signing certificate.
///
/// swift-certificates' CMS verifier cannot be used for this step: genuine App Store receipts name the bare
/// `rsaEncryption` key algorithm as their signature algorithm and let the digest algorithm choose the hash,
/// which that verifier rejects. Both that legacy form and proper signature algorithms (RSA PKCS#1 v1.5 with
/// SHA-1/256/384/512, ECDSA with SHA-256/384/512) are accepted here.
enum ReceiptSignature {
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// Signature algorithm OID, the algorithm, and the digest it implies.
    private static let algorithms: [(ASN1ObjectIdentifier, Certificate.SignatureAlgorithm, ASN1ObjectIdentifier)] = [
        ([1, 2, 840, 113_549, 1, 1, 5], .sha1WithRSAEncryption, sha1),
        ([1, 2, 840, 113_549, 1, 1, 11], .sha256WithRSAEncryption, sha256),
        ([1, 2, 840, 113_549, 1, 1, 12], .sha384WithRSAEncryption, sha384),
        ([1, 2, 840, 113_549, 1, 1, 13], .sha512WithRSAEncryption, sha512),
        ([1, 2, 840, 10045, 4, 3, 2], .ecdsaWithSHA256, sha256),
        ([1, 2, 840, 10045, 4, 3, 3], .ecdsaWithSHA384, sha384),
        ([1, 2, 840, 10045, 4, 3, 4], .ecdsaWithSHA512, sha512),
    ]

    /// The signature algorithm a signer info names, checked against its digest algorithm.
    static func algorithm(
        signature: ASN1ObjectIdentifier, digest: ASN1ObjectIdentifier
    ) throws(AppReceiptError) -> Certificate.SignatureAlgorithm {
        if signature == rsaEncryption {
            // Apple's legacy form: the digest algorithm selects the hash of an RSA PKCS#1 v1.5 signature.
            let rsa = algorithms.first { $0.2 == digest && $0.1.isRSA }
            guard let rsa else { throw .invalidSignature("unsupported digest algorithm \(digest) for RSA") }
            return rsa.1
        }
        guard let known = algorithms.first(where: { $0.0 == signature }) else {
            throw .invalidSignature("unsupported signature algorithm \(signature)")
        }
        guard known.2 == digest else {
            throw .invalidSignature("digest algorithm \(digest) does not match signature algorithm \(signature)")
        }
        return known.1
    }

    /// Throws ``AppReceiptError/invalidSignature(_:)`` unless `certificate`'s key signed `container`'s content.
    static func verify(_ container: ReceiptSignedData, signer certificate: Certificate) throws(AppReceiptError) {
        let algorithm = try algorithm(signature: container.signatureAlgorithm, digest: container.digestAlgorithm)
        var signedBytes = container.content
        if let signedAttributes = container.signedAttributes {
            // RFC 5652 §5.4: the signature covers the attributes, which carry the content's digest.
            guard let messageDigest = container.messageDigest else {
                throw .invalidSignature("signed attributes without a message digest")
            }
            guard container.contentTypeAttribute == nil || container.contentTypeAttribute == ReceiptSignedData.dataType
            else {
                throw .invalidSignature("the signed content type is not id-data")
            }
            guard digest(container.content, with: container.digestAlgorithm) == messageDigest else {
                throw .invalidSignature("the content does not match the signed message digest")
            }
            signedBytes = signedAttributes
        }
        guard
            certificate.publicKey.isValidSignature(container.signature, for: signedBytes, signatureAlgorithm: algorithm)
        else {
            throw .invalidSignature("the signature was not made over this content by the signing certificate's key")
        }
    }

    private static func digest(_ bytes: [UInt8], with algorithm: ASN1ObjectIdentifier) -> [UInt8]? {
        switch algorithm {
        case sha1: Array(Insecure.SHA1.hash(data: bytes))
        case sha256: Array(SHA256.hash(data: bytes))
        case sha384: Array(SHA384.hash(data: bytes))
        case sha512: Array(SHA512.hash(data: bytes))
        default: nil
        }
    }
}

extension Certificate.SignatureAlgorithm {
    fileprivate var isRSA: Bool {
        [.sha1WithRSAEncryption, .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption]
            .contains(self)
    }
}
