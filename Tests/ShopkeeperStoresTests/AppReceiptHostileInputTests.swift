import Foundation
import ShopkeeperStores
import Testing
@_spi(CMS) import X509

/// Input that is not a receipt, or a receipt from a signer the sandbox would never be: refused with a code,
/// never a crash.
@Suite struct AppReceiptHostileInputTests {
    let chain: SigningChain
    let reader: AppReceiptReader

    init() throws {
        chain = try SigningChain.generate()
        reader = AppReceiptReader(trustedRoots: [chain.root])
    }

    func code(_ base64: String) async -> String? {
        do {
            _ = try await reader.read(base64: base64)
            return nil
        } catch {
            return error.code
        }
    }

    func code(_ bytes: [UInt8]) async -> String? {
        await code(Data(bytes).base64EncodedString())
    }

    @Test func everyTruncationIsMalformed() async throws {
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: chain)
        #expect(await code(container) == nil)
        for length in stride(from: 0, to: container.count, by: 1) {
            let result = await code(Array(container.prefix(length)))
            #expect(result == "malformed_receipt", "prefix of \(length) bytes gave \(result ?? "success")")
        }
        #expect(await code(container + [0x00]) == "malformed_receipt")
    }

    @Test func randomBytesAreMalformed() async {
        var generator = SplitMix(seed: 0x5EED)
        for size in [1, 2, 16, 100, 1000, 5000] {
            for _ in 0..<20 {
                let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(await code(bytes) == "malformed_receipt")
            }
        }
        // Random bytes behind a plausible SEQUENCE header.
        let bytes = [0x30, 0x82, 0x01, 0x00] + (0..<256).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(await code(bytes) == "malformed_receipt")
    }

    @Test func flippedBytesNeverCrashAndNeverPassInTheSignedPart() async throws {
        let receipt = ReceiptFixtures.receipt()
        let container = try AppReceiptContainer.sign(receipt, with: chain)
        let payload = try receipt.derPayload()
        let start = try #require(AppReceiptTests.firstIndex(of: payload, in: container))
        var codes: Set<String> = []
        for index in container.indices {
            var mutated = container
            mutated[index] ^= 0x80
            let result = await code(mutated)
            codes.insert(result ?? "accepted")
            if (start..<(start + payload.count)).contains(index) {
                #expect(result != nil, "flipping payload byte \(index) was accepted")
            }
        }
        // Bytes of the embedded root may change harmlessly: the trusted root is the reader's own copy.
        let refusals: Set = ["malformed_receipt", "invalid_signature", "untrusted_chain", "missing_marker_extension"]
        #expect(codes.isSubset(of: refusals.union(["accepted"])))
        #expect(codes.contains("invalid_signature") && codes.contains("malformed_receipt"))
    }

    @Test func nonBase64IsMalformed() async {
        #expect(await code("") == "malformed_receipt")
        #expect(await code("not base64 at all!") == "malformed_receipt")
        #expect(await code("MIIT%%==") == "malformed_receipt")
        #expect(await code("QUJD") == "malformed_receipt")  // base64 of "ABC": not ASN.1
    }

    @Test func oversizedInputIsMalformed() async throws {
        let container = try AppReceiptContainer.sign(ReceiptFixtures.receipt(), with: chain)
        let padding = String(repeating: "\n", count: AppReceiptReader.maximumBase64Length)
        #expect(await code(Data(container).base64EncodedString() + padding) == "malformed_receipt")
        let huge = String(repeating: "A", count: AppReceiptReader.maximumBase64Length + 4)
        #expect(await code(huge) == "malformed_receipt")
    }

    @Test func garbagePayloadSignedByTheTrustedChainIsMalformed() async throws {
        let container = try AppReceiptContainer.sign(
            payload: [0x31, 0x03, 0x02, 0x01, 0x05], certificate: chain.leaf,
            privateKey: Certificate.PrivateKey(chain.leafKey), signatureAlgorithm: .ecdsaWithSHA256,
            additionalCertificates: [chain.intermediate, chain.root]
        )
        #expect(await code(container) == "malformed_receipt")
    }

    @Test func containerWithoutTheSignersCertificateIsAnInvalidSignature() async throws {
        let receipt = ReceiptFixtures.receipt()
        let full = try AppReceiptContainer.sign(receipt, with: chain)
        // Sign with the leaf but embed another chain's leaf in its place: the signer cannot be found.
        let other = try SigningChain.generate()
        let swapped = try AppReceiptContainer.sign(
            payload: receipt.derPayload(), certificate: other.leaf, privateKey: Certificate.PrivateKey(chain.leafKey),
            signatureAlgorithm: .ecdsaWithSHA256, additionalCertificates: [chain.intermediate, chain.root]
        )
        #expect(await code(full) == nil)
        #expect(await code(swapped) == "invalid_signature")
    }

    // MARK: RSA, the algorithm of genuine App Store receipts

    func rsaContainer(_ algorithm: Certificate.SignatureAlgorithm) throws -> (AppReceipt, [UInt8]) {
        let key = try ReceiptFixtures.rsaKey()
        let leaf = try ReceiptFixtures.leaf(for: key, in: chain)
        let receipt = ReceiptFixtures.receipt()
        let container = try AppReceiptContainer.sign(
            payload: receipt.derPayload(), certificate: leaf, privateKey: key, signatureAlgorithm: algorithm,
            additionalCertificates: [chain.intermediate, chain.root]
        )
        return (receipt, container)
    }

    @Test(arguments: [Certificate.SignatureAlgorithm.sha256WithRSAEncryption, .sha1WithRSAEncryption])
    func rsaSignedReceiptsAreRead(algorithm: Certificate.SignatureAlgorithm) async throws {
        let (receipt, container) = try rsaContainer(algorithm)
        #expect(try await reader.read(base64: Data(container).base64EncodedString()) == receipt)
    }

    /// Apple's receipts name the bare `rsaEncryption` OID as the signature algorithm and let the digest
    /// algorithm pick the hash. The reader accepts that form; swift-certificates' CMS verifier does not.
    @Test func rsaEncryptionSignatureAlgorithmIsAccepted() async throws {
        let (receipt, container) = try rsaContainer(.sha256WithRSAEncryption)
        let sha256WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]
        let offset = try #require(AppReceiptTests.firstIndex(of: sha256WithRSA, in: container))
        var legacy = container
        legacy[offset + 8] = 0x01  // 1.2.840.113549.1.1.11 -> 1.2.840.113549.1.1.1 (rsaEncryption)
        #expect(AppReceiptTests.firstIndex(of: sha256WithRSA, in: legacy) == nil)
        #expect(try await reader.read(base64: Data(legacy).base64EncodedString()) == receipt)

        let swiftCertificates = await CMS.isValidAttachedSignature(
            signatureBytes: legacy, trustRoots: CertificateStore([chain.root])
        ) {
            RFC5280Policy()
            AppleMarkerPolicy()
        }
        guard case .failure(.invalidCMSBlock) = swiftCertificates else {
            Issue.record("swift-certificates now accepts rsaEncryption; the reader could use CMS directly")
            return
        }
        let proper = await CMS.isValidAttachedSignature(
            signatureBytes: container, trustRoots: CertificateStore([chain.root])
        ) {
            RFC5280Policy()
            AppleMarkerPolicy()
        }
        #expect((try? proper.get()) != nil)
    }

    @Test func rsaSignatureOverOtherContentIsInvalid() async throws {
        let (_, container) = try rsaContainer(.sha256WithRSAEncryption)
        let productId = Array("com.example.coins".utf8)
        let offset = try #require(AppReceiptTests.firstIndex(of: productId, in: container))
        var tampered = container
        tampered[offset] = UInt8(ascii: "k")
        #expect(await code(tampered) == "invalid_signature")
    }
}

/// A small seeded generator, so random-input tests are reproducible.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
