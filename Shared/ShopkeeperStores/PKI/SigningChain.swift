import Crypto
import Foundation
import SwiftASN1
import X509

/// A root, an intermediate and a leaf, P-256, shaped like the chain Apple signs App Store data with.
///
/// Each certificate carries the extensions its counterpart in Apple's chain (Apple Root CA - G3, Apple Worldwide
/// Developer Relations CA - G6, the App Store receipt-signing leaf) carries, so that strict X.509 checkers (OpenSSL's
/// `X509_V_FLAG_X509_STRICT`, which Apple's own libraries turn on) accept it: see ``CertificateFactory``.
///
/// The sandbox store generates one once and persists it (``pemBundle``); tests build variants of it
/// (a leaf without its marker, a chain to another root, short validity) to prove that the verifier
/// refuses each kind of forgery.
package struct SigningChain: Sendable {
    package var root: Certificate
    package var intermediate: Certificate
    package var leaf: Certificate
    package var rootKey: P256.Signing.PrivateKey
    package var intermediateKey: P256.Signing.PrivateKey
    package var leafKey: P256.Signing.PrivateKey

    /// What to put in a generated chain. The defaults make a chain Apple's rules accept.
    package struct Options: Sendable {
        /// Prefix of every certificate's common name.
        package var name: String
        package var notValidBefore: Date
        package var notValidAfter: Date
        /// Leaf validity; the chain's when `nil`.
        package var leafValidity: ClosedRange<Date>?
        package var intermediateMarker: Bool
        package var leafMarker: Bool

        package init(
            name: String = "Shopkeeper Sandbox",
            notValidBefore: Date = Date(timeIntervalSinceNow: -86_400),
            notValidAfter: Date = Date(timeIntervalSinceNow: 20 * 365 * 86_400),
            leafValidity: ClosedRange<Date>? = nil,
            intermediateMarker: Bool = true,
            leafMarker: Bool = true
        ) {
            self.name = name
            self.notValidBefore = notValidBefore
            self.notValidAfter = notValidAfter
            self.leafValidity = leafValidity
            self.intermediateMarker = intermediateMarker
            self.leafMarker = leafMarker
        }
    }

    package init(
        root: Certificate, intermediate: Certificate, leaf: Certificate,
        rootKey: P256.Signing.PrivateKey, intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Generates a new chain with fresh keys.
    package static func generate(_ options: Options = Options()) throws -> SigningChain {
        let rootKey = P256.Signing.PrivateKey()
        let root = try CertificateFactory.root(
            name: "\(options.name) Root CA", key: rootKey,
            validity: options.notValidBefore...options.notValidAfter
        )
        return try generate(options, under: root, rootKey: rootKey)
    }

    /// Generates an intermediate and a leaf under an existing root.
    package static func generate(
        _ options: Options, under root: Certificate, rootKey: P256.Signing.PrivateKey
    ) throws -> SigningChain {
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try CertificateFactory.intermediate(
            name: "\(options.name) Worldwide Developer Relations CA", key: intermediateKey,
            issuer: root, issuerKey: rootKey,
            validity: options.notValidBefore...options.notValidAfter,
            marker: options.intermediateMarker ? AppleMarkerExtension.intermediate : nil
        )
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try CertificateFactory.leaf(
            name: "\(options.name) App Store Signing", key: leafKey,
            issuer: intermediate, issuerKey: intermediateKey,
            validity: options.leafValidity ?? options.notValidBefore...options.notValidAfter,
            marker: options.leafMarker ? AppleMarkerExtension.receiptSigning : nil
        )
        return SigningChain(
            root: root, intermediate: intermediate, leaf: leaf,
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey
        )
    }

    /// The `x5c` header value: leaf, intermediate, root, each base64 DER.
    package func x5c() throws -> [String] {
        try [leaf, intermediate, root].map { certificate in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes).base64EncodedString()
        }
    }
}

extension SigningChain {
    /// Whether every certificate carries the key identifiers a strict X.509 checker requires: a Subject Key
    /// Identifier on each, an Authority Key Identifier on the intermediate and the leaf. Chains generated before
    /// the certificates were shaped like Apple's lack them (Apple's Python library refused them with "Missing
    /// Authority Key Identifier").
    package var hasKeyIdentifiers: Bool {
        func has(_ certificate: Certificate, authority: Bool) -> Bool {
            let subject = (try? certificate.extensions.subjectKeyIdentifier) != nil
            let issuer = (try? certificate.extensions.authorityKeyIdentifier) != nil
            return subject && (!authority || issuer)
        }
        return has(root, authority: false) && has(intermediate, authority: true) && has(leaf, authority: true)
    }
}
