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

    /// The extensions of Apple's App Store chain, which strict X.509 checkers (Apple's libraries) require: key
    /// identifiers linking each certificate to its issuer, basic constraints, key usages and Apple's markers.
    @Test func certificatesCarryTheExtensionsOfApplesChain() throws {
        let chain = try SigningChain.generate()
        #expect(chain.hasKeyIdentifiers)
        let rootKeyID = try #require(try chain.root.extensions.subjectKeyIdentifier?.keyIdentifier)
        let intermediateKeyID = try #require(try chain.intermediate.extensions.subjectKeyIdentifier?.keyIdentifier)
        #expect(try chain.leaf.extensions.subjectKeyIdentifier != nil)
        #expect(try chain.root.extensions.authorityKeyIdentifier == nil)
        #expect(try chain.intermediate.extensions.authorityKeyIdentifier?.keyIdentifier == rootKeyID)
        #expect(try chain.leaf.extensions.authorityKeyIdentifier?.keyIdentifier == intermediateKeyID)
        #expect(try chain.root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try chain.intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try chain.leaf.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try chain.intermediate.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        #expect(try chain.leaf.extensions.keyUsage == KeyUsage(digitalSignature: true))
        #expect(try chain.leaf.extensions.authorityInformationAccess != nil)
        #expect(AppleMarkerExtension.isPresent(AppleMarkerExtension.intermediate, in: chain.intermediate))
        #expect(AppleMarkerExtension.isPresent(AppleMarkerExtension.receiptSigning, in: chain.leaf))
        for certificate in [chain.root, chain.intermediate, chain.leaf] {
            let critical = Set(certificate.extensions.filter(\.critical).map(\.oid))
            #expect(critical == [.X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage])
        }
        let unmarked = try SigningChain.generate(
            SigningChain.Options(intermediateMarker: false), under: chain.root, rootKey: chain.rootKey)
        #expect(try unmarked.intermediate.extensions.authorityKeyIdentifier?.keyIdentifier == rootKeyID)
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
