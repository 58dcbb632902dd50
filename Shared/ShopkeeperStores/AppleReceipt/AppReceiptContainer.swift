import Crypto
import Foundation
@_spi(CMS) import X509

/// Apple's app receipt container: the receipt payload inside a PKCS#7 / CMS `SignedData` with attached content.
package enum AppReceiptContainer {
    /// Signs `receipt` the way the App Store does, with `chain`'s leaf key (ECDSA P-256 with SHA-256), and
    /// embeds leaf, intermediate and root. Returns the DER of the container; receipts travel base64-encoded.
    package static func sign(_ receipt: AppReceipt, with chain: SigningChain) throws -> [UInt8] {
        try sign(
            payload: receipt.derPayload(), certificate: chain.leaf,
            privateKey: Certificate.PrivateKey(chain.leafKey),
            signatureAlgorithm: .ecdsaWithSHA256,
            additionalCertificates: [chain.intermediate, chain.root]
        )
    }

    /// Signs arbitrary payload bytes: the building block of ``sign(_:with:)``, open for tests that need a
    /// container the sandbox would never make (another key, an RSA leaf, signed attributes).
    ///
    /// - Parameter signingTime: when set, the container carries CMS signed attributes (content type, message
    ///   digest, signing time) and the signature covers them; App Store receipts have none.
    package static func sign(
        payload: [UInt8], certificate: Certificate, privateKey: Certificate.PrivateKey,
        signatureAlgorithm: Certificate.SignatureAlgorithm, additionalCertificates: [Certificate],
        signingTime: Date? = nil
    ) throws -> [UInt8] {
        try CMS.sign(
            payload, signatureAlgorithm: signatureAlgorithm,
            additionalIntermediateCertificates: additionalCertificates,
            certificate: certificate, privateKey: privateKey, signingTime: signingTime, detached: false
        )
    }
}
