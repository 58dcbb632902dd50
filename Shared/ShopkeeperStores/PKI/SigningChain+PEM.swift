import Crypto
import SwiftASN1
import X509

extension SigningChain {
    /// The chain and its keys as one PEM text: root, intermediate and leaf, each certificate
    /// followed by its private key. This is how the sandbox store persists its PKI.
    package func pemBundle() throws -> String {
        let blocks = [
            try root.serializeAsPEM().pemString, rootKey.pemRepresentation,
            try intermediate.serializeAsPEM().pemString, intermediateKey.pemRepresentation,
            try leaf.serializeAsPEM().pemString, leafKey.pemRepresentation,
        ]
        return blocks.joined(separator: "\n") + "\n"
    }

    /// Reads a bundle written by ``pemBundle()``.
    package init(pemBundle: String) throws {
        let documents = try PEMDocument.parseMultiple(pemString: pemBundle)
        guard documents.count == 6 else {
            throw SigningChainError.malformedBundle("expected 6 PEM blocks, found \(documents.count)")
        }
        func certificate(_ index: Int) throws -> Certificate {
            try Certificate(pemDocument: documents[index])
        }
        func key(_ index: Int) throws -> P256.Signing.PrivateKey {
            try P256.Signing.PrivateKey(derRepresentation: documents[index].derBytes)
        }
        self.init(
            root: try certificate(0), intermediate: try certificate(2), leaf: try certificate(4),
            rootKey: try key(1), intermediateKey: try key(3), leafKey: try key(5)
        )
    }
}

/// A persisted signing chain that cannot be read back.
package enum SigningChainError: Error, CustomStringConvertible {
    case malformedBundle(String)

    package var description: String {
        switch self {
        case .malformedBundle(let reason): "malformed signing-chain bundle: \(reason)"
        }
    }
}
