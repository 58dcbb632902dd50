import Foundation
@_spi(FixedExpiryValidationTime) @_spi(DisableValidityCheck) import X509

/// Reads and verifies a base64 app receipt: the verifier side of ``AppReceiptContainer``.
///
/// In order: size and base64 (``AppReceiptError/malformed(_:)``), the CMS structure (`malformed_receipt`), the
/// signature of the embedded signing certificate over the content (`invalid_signature`), Apple's marker
/// extensions on leaf and intermediate (`missing_marker_extension`), the payload (`malformed_receipt`), and
/// last the chain to one of ``trustedRoots`` under ``AppleMarkerPolicy`` with RFC 5280 validity evaluated at the
/// receipt's creation date (`untrusted_chain`, `certificate_not_valid_at_signing_date`). Certificates in the
/// receipt only ever serve as intermediates: the root must be one of ``trustedRoots``.
package struct AppReceiptReader: Sendable {
    /// The longest base64 text accepted (512 KiB); real receipts are a few KiB.
    package static let maximumBase64Length = 512 * 1024

    /// The roots a receipt must chain to.
    package let trustedRoots: [Certificate]

    package init(trustedRoots: [Certificate]) {
        self.trustedRoots = trustedRoots
    }

    /// Verifies `receiptData` (base64; line breaks and spaces are ignored) and returns its receipt.
    package func read(base64 receiptData: String) async throws(AppReceiptError) -> AppReceipt {
        try await read(der: Self.decodeBase64(receiptData))
    }

    /// Verifies a receipt container given as bytes.
    package func read(der bytes: [UInt8]) async throws(AppReceiptError) -> AppReceipt {
        guard bytes.count <= Self.maximumBase64Length / 4 * 3 else {
            throw .malformed("receipt of \(bytes.count) bytes is over the size limit")
        }
        let container = try ReceiptSignedData(berEncoded: bytes)
        guard let leaf = container.signerCertificate() else {
            throw .invalidSignature("the receipt does not include the certificate that signed it")
        }
        try ReceiptSignature.verify(container, signer: leaf)
        try Self.checkMarkers(leaf: leaf, certificates: container.certificates)
        let receipt = try AppReceipt(derPayload: container.content)
        try await validateChain(leaf: leaf, certificates: container.certificates, at: receipt.creationDate)
        return receipt
    }

    static func decodeBase64(_ text: String) throws(AppReceiptError) -> [UInt8] {
        guard text.utf8.count <= maximumBase64Length else {
            throw .malformed("receipt data of \(text.utf8.count) characters is over the \(maximumBase64Length) limit")
        }
        let compact = text.filter { !$0.isWhitespace }
        guard !compact.isEmpty, let data = Data(base64Encoded: compact) else {
            throw .malformed("receipt data is not base64")
        }
        return Array(data)
    }

    /// Names the missing marker precisely, before the chain verifier would only say "fails policy".
    static func checkMarkers(leaf: Certificate, certificates: [Certificate]) throws(AppReceiptError) {
        guard AppleMarkerExtension.isPresent(AppleMarkerExtension.receiptSigning, in: leaf) else {
            throw .missingMarkerExtension("the signing certificate lacks Apple's receipt-signing marker")
        }
        let issuers = certificates.filter { $0.subject == leaf.issuer && $0 != leaf }
        if !issuers.isEmpty,
            !issuers.contains(where: { AppleMarkerExtension.isPresent(AppleMarkerExtension.intermediate, in: $0) })
        {
            throw .missingMarkerExtension("the intermediate certificate lacks Apple's intermediate marker")
        }
    }

    private func validateChain(
        leaf: Certificate, certificates: [Certificate], at date: Date
    ) async throws(AppReceiptError) {
        let roots = CertificateStore(trustedRoots)
        let intermediates = CertificateStore(certificates)
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: date)
            AppleMarkerPolicy()
        }
        guard case .couldNotValidate(let failures) = await verifier.validate(leaf: leaf, intermediates: intermediates)
        else { return }
        // Tell an expired (or not yet valid) but otherwise trusted chain from one that is not trusted at all.
        var ignoringValidity = Verifier(rootCertificates: roots) {
            RFC5280Policy.withValidityCheckDisabled()
            AppleMarkerPolicy()
        }
        if case .validCertificate = await ignoringValidity.validate(leaf: leaf, intermediates: intermediates) {
            throw .certificateNotValidAtSigningDate(
                "the signing chain was not valid at the receipt's creation date \(ReceiptDate.gmt(date))")
        }
        let reasons = failures.prefix(3).map { String(describing: $0.policyFailureReason) }
        throw .untrustedChain("no chain to a trusted root: \(reasons.joined(separator: "; "))")
    }
}
