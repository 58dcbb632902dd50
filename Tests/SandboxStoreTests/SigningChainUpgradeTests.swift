import Crypto
import Foundation
import ShopkeeperStores
import Testing
import X509

@testable import SandboxStore

/// A state directory made by the sandbox before its certificates carried Apple's key identifiers.
@Suite struct SigningChainUpgradeTests {
    /// A chain as the old generator wrote it: no Authority Key Identifier anywhere, no Subject Key Identifier on the
    /// leaf.
    static func legacyChain() throws -> SigningChain {
        let modern = try SigningChain.generate()
        func issue(
            _ name: String, key: P256.Signing.PrivateKey, issuer: Certificate, issuerKey: P256.Signing.PrivateKey,
            authority: Bool
        ) throws -> Certificate {
            let extensions = try Certificate.Extensions {
                if authority {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
                } else {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                }
                AppleMarkerExtension.extensionValue(
                    authority ? AppleMarkerExtension.intermediate : AppleMarkerExtension.receiptSigning)
            }
            return try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: Date(timeIntervalSinceNow: -86_400), notValidAfter: Date(timeIntervalSinceNow: 86_400),
                issuer: issuer.subject, subject: try DistinguishedName { CommonName(name) },
                signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuerKey))
        }
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let intermediate = try issue(
            "Old WWDR", key: intermediateKey, issuer: modern.root, issuerKey: modern.rootKey, authority: true)
        let leaf = try issue(
            "Old Leaf", key: leafKey, issuer: intermediate, issuerKey: intermediateKey, authority: false)
        return SigningChain(
            root: modern.root, intermediate: intermediate, leaf: leaf, rootKey: modern.rootKey,
            intermediateKey: intermediateKey, leafKey: leafKey)
    }

    @Test func anOldChainKeepsItsRootAndGetsAnIntermediateAndLeafWithKeyIdentifiers() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let legacy = try Self.legacyChain()
        #expect(!legacy.hasKeyIdentifiers)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try legacy.pemBundle().write(to: directory.appendingPathComponent("pki.pem"), atomically: true, encoding: .utf8)

        let upgraded = try StateDirectory(url: directory).loadOrCreateSigningChain()
        #expect(upgraded.hasKeyIdentifiers)
        #expect(upgraded.root == legacy.root)
        #expect(upgraded.rootKey.rawRepresentation == legacy.rootKey.rawRepresentation)
        #expect(upgraded.leaf != legacy.leaf)
        let saved = try SigningChain(
            pemBundle: String(contentsOf: directory.appendingPathComponent("pki.pem"), encoding: .utf8))
        #expect(saved.leaf == upgraded.leaf && saved.intermediate == upgraded.intermediate)
        let rootPEM = try String(contentsOf: directory.appendingPathComponent("root.pem"), encoding: .utf8)
        #expect(try Certificate(pemEncoded: rootPEM) == legacy.root)

        // The upgraded chain is kept: the next start loads it as it is.
        let again = try StateDirectory(url: directory).loadOrCreateSigningChain()
        #expect(again.leaf == upgraded.leaf)

        // The sandbox signs with the upgraded chain, and what it signs verifies against the root trusted before.
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let bought = try await sandbox.buyApple()
            let verifier = try AppleSignedDataVerifier(trustedRoots: [legacy.root])
            let payload = try await verifier.verify(bought.signedTransaction, as: AppleTransactionPayload.self)
            #expect(payload.transactionId == bought.transactionId)
            let x5c = try #require(CompactJWS(bought.signedTransaction)?.header.x5c)
            let leaf = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[0]))))
            #expect(leaf == upgraded.leaf)
        }
    }
}
