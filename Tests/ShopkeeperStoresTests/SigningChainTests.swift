import Foundation
import ShopkeeperStores
import Testing
@_spi(FixedExpiryValidationTime) import X509

@Suite struct SigningChainTests {
    @Test func generatedChainSatisfiesApplesPolicy() async throws {
        let chain = try SigningChain.generate()
        var verifier = Verifier(rootCertificates: CertificateStore([chain.root])) {
            RFC5280Policy(fixedExpiryValidationTime: Date())
            AppleMarkerPolicy()
        }
        let result = await verifier.validate(
            leaf: chain.leaf, intermediates: CertificateStore([chain.intermediate]))
        guard case .validCertificate(let path) = result else {
            Issue.record("chain did not validate: \(result)")
            return
        }
        #expect(Array(path) == [chain.leaf, chain.intermediate, chain.root])
    }

    @Test func pemBundleRoundTrips() throws {
        let chain = try SigningChain.generate()
        let restored = try SigningChain(pemBundle: try chain.pemBundle())
        #expect(restored.root == chain.root)
        #expect(restored.leaf == chain.leaf)
        #expect(restored.leafKey.rawRepresentation == chain.leafKey.rawRepresentation)
        #expect(throws: SigningChainError.self) {
            try SigningChain(pemBundle: try chain.root.serializeAsPEM().pemString)
        }
    }
}
