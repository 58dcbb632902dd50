import Foundation
import X509

extension AppReceiptReader {
    /// The receipt in `receiptData` (base64), read without checking who signed it: only the size, base64, the CMS
    /// structure and the payload. For picking the check a receipt gets (its `receiptType`: the claim only chooses),
    /// and for the StoreKit Testing receipts an app accepts unverified, as Apple's library reads them.
    package static func unverified(base64 receiptData: String) throws(AppReceiptError) -> AppReceipt {
        let container = try container(base64: receiptData)
        return try AppReceipt(derPayload: container.content)
    }

    /// A receipt signed by Xcode's StoreKit Testing (receipt type `Xcode`): signed by the certificate it embeds, which
    /// is `certificate` (the StoreKit test certificate the developer uploaded, the same DER bytes) or signed by its
    /// key, the rule ``StoreKitTestVerifier`` applies to Xcode's JWS. No Apple marker, chain or validity is checked.
    package static func readStoreKitTest(
        base64 receiptData: String, trusting certificate: Certificate
    ) throws(AppReceiptError) -> AppReceipt {
        let container = try container(base64: receiptData)
        guard let leaf = container.signerCertificate() else {
            throw .invalidSignature("the receipt does not include the certificate that signed it")
        }
        try ReceiptSignature.verify(container, signer: leaf)
        guard leaf == certificate || certificate.publicKey.isValidSignature(leaf.signature, for: leaf) else {
            throw .untrustedChain("the receipt is not signed with the app's StoreKit test certificate")
        }
        return try AppReceipt(derPayload: container.content)
    }

    private static func container(base64 receiptData: String) throws(AppReceiptError) -> ReceiptSignedData {
        let bytes = try decodeBase64(receiptData)
        guard bytes.count <= maximumBase64Length / 4 * 3 else {
            throw .malformed("receipt of \(bytes.count) bytes is over the size limit")
        }
        return try ReceiptSignedData(berEncoded: bytes)
    }
}
