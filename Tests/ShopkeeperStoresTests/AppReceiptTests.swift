import Crypto
import Foundation
import ShopkeeperStores
import Testing
@_spi(CMS) import X509

@Suite struct AppReceiptTests {
    let chain: SigningChain
    let reader: AppReceiptReader

    init() throws {
        chain = try SigningChain.generate()
        reader = AppReceiptReader(trustedRoots: [chain.root])
    }

    /// Reads `bytes` and returns the error code, or `nil` if the receipt was accepted.
    func code(reading bytes: [UInt8], with reader: AppReceiptReader? = nil) async -> String? {
        await code(reading: Data(bytes).base64EncodedString(), with: reader)
    }

    func code(reading base64: String, with reader: AppReceiptReader? = nil) async -> String? {
        do {
            _ = try await (reader ?? self.reader).read(base64: base64)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func signedReceiptReadsBackEqual() async throws {
        let receipt = ReceiptFixtures.receipt()
        let container = try AppReceiptContainer.sign(receipt, with: chain)
        let read = try await reader.read(base64: Data(container).base64EncodedString())
        #expect(read == receipt)
        #expect(read.inAppPurchases[0].purchaseDate.timeIntervalSince1970 == 1_672_574_400.123)
        // Line breaks, as base64 receipts pick up in transit, are tolerated.
        let wrapped = Data(container).base64EncodedString(options: .lineLength64Characters)
        #expect(try await reader.read(base64: wrapped) == receipt)
    }

    @Test func containerIsStandardCMSThatSwiftCertificatesAccepts() async throws {
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: chain)
        let result = await CMS.isValidAttachedSignature(
            signatureBytes: container, trustRoots: CertificateStore([chain.root])
        ) {
            RFC5280Policy()
            AppleMarkerPolicy()
        }
        guard case .success(let valid) = result else {
            Issue.record("swift-certificates refused the container: \(String(reflecting: result))")
            return
        }
        #expect(valid.signer == chain.leaf)
    }

    @Test func tamperedContentIsAnInvalidSignature() async throws {
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: chain)
        let productId = Array("com.example.monthly".utf8)
        let offset = try #require(Self.firstIndex(of: productId, in: container))
        var tampered = container
        tampered[offset + productId.count - 1] ^= 0x01  // "monthlx": still well-formed
        #expect(await code(reading: tampered) == "invalid_signature")
    }

    @Test func signatureByAnotherKeyIsAnInvalidSignature() async throws {
        let receipt = ReceiptFixtures.receipt()
        let forged = try AppReceiptContainer.sign(
            payload: receipt.derPayload(), certificate: chain.leaf,
            privateKey: Certificate.PrivateKey(P256.Signing.PrivateKey()), signatureAlgorithm: .ecdsaWithSHA256,
            additionalCertificates: [chain.intermediate, chain.root]
        )
        #expect(await code(reading: forged) == "invalid_signature")
        // The same container signed with the leaf's key is fine: only the key differs.
        let genuine = try AppReceiptContainer.sign(
            payload: receipt.derPayload(), certificate: chain.leaf, privateKey: Certificate.PrivateKey(chain.leafKey),
            signatureAlgorithm: .ecdsaWithSHA256, additionalCertificates: [chain.intermediate, chain.root]
        )
        #expect(await code(reading: genuine) == nil)
    }

    @Test func chainToAnotherRootWithApplesNamesAndMarkersIsUntrusted() async throws {
        // Same names, same marker extensions, different keys: only the trusted root tells them apart.
        let impostor = try SigningChain.generate()
        #expect(impostor.root.subject == chain.root.subject)
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: impostor)
        #expect(await code(reading: container) == "untrusted_chain")
        #expect(await code(reading: container, with: AppReceiptReader(trustedRoots: [impostor.root])) == nil)
        #expect(await code(reading: container, with: AppReceiptReader(trustedRoots: [])) == "untrusted_chain")
    }

    @Test(arguments: [(false, true), (true, false)])
    func missingMarkerIsReported(intermediateMarker: Bool, leafMarker: Bool) async throws {
        let options = SigningChain.Options(intermediateMarker: intermediateMarker, leafMarker: leafMarker)
        let unmarked = try SigningChain.generate(options, under: chain.root, rootKey: chain.rootKey)
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: unmarked)
        #expect(await code(reading: container) == "missing_marker_extension")
    }

    @Test func chainIsValidatedAtTheReceiptsCreationDate() async throws {
        let now = Date()
        let leafValidity = now.addingTimeInterval(-10 * 86_400)...now.addingTimeInterval(-5 * 86_400)
        let expired = try SigningChain.generate(
            SigningChain.Options(notValidBefore: now.addingTimeInterval(-20 * 86_400), leafValidity: leafValidity))
        let reader = AppReceiptReader(trustedRoots: [expired.root])
        let createdNow = try AppReceiptContainer.sign(ReceiptFixtures.receipt(creationDate: now), with: expired)
        #expect(await code(reading: createdNow, with: reader) == "certificate_not_valid_at_signing_date")
        let createdBefore = try AppReceiptContainer.sign(
            ReceiptFixtures.receipt(creationDate: now.addingTimeInterval(-11 * 86_400)), with: expired)
        #expect(await code(reading: createdBefore, with: reader) == "certificate_not_valid_at_signing_date")
        // Created while the leaf was valid: accepted although the leaf has expired since.
        let receipt = ReceiptFixtures.receipt(creationDate: now.addingTimeInterval(-7 * 86_400))
        let createdInside = try AppReceiptContainer.sign(receipt, with: expired)
        #expect(try await reader.read(base64: Data(createdInside).base64EncodedString()) == receipt)
        // The validity check never rescues an untrusted chain.
        #expect(await code(reading: createdNow) == "untrusted_chain")
    }

    @Test func signedAttributesAreVerified() async throws {
        let receipt = ReceiptFixtures.receipt()
        let container = try AppReceiptContainer.sign(
            payload: receipt.derPayload(), certificate: chain.leaf, privateKey: Certificate.PrivateKey(chain.leafKey),
            signatureAlgorithm: .ecdsaWithSHA256, additionalCertificates: [chain.intermediate, chain.root],
            signingTime: Date()
        )
        #expect(try await reader.read(base64: Data(container).base64EncodedString()) == receipt)
        let productId = Array("com.example.coins".utf8)
        let offset = try #require(Self.firstIndex(of: productId, in: container))
        var tampered = container
        tampered[offset] = UInt8(ascii: "d")
        #expect(await code(reading: tampered) == "invalid_signature")
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
