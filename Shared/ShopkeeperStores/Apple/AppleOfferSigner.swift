import Crypto
import Foundation

/// Signs App Store subscription offers with an app's In-App Purchase key (the App Store Connect key that also
/// authorizes App Store Server API calls), in the forms StoreKit checks on the device:
///
/// - the classic promotional offer signature (`SKPaymentDiscount`, and StoreKit 2's
///   `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`): ECDSA P-256 with SHA-256
///   over the offer's fields joined by U+2063, base64 of the DER signature;
/// - the JWS forms Apple documents in "Generating JWS to sign App Store requests": a promotional offer
///   (`aud` `promotional-offer`) and an introductory offer eligibility (`aud` `introductory-offer-eligibility`).
///
/// The fields and their order are those of Apple's App Store Server Library (`PromotionalOfferSignatureCreator`,
/// `PromotionalOfferV2SignatureCreator`, `IntroductoryOfferEligibilitySignatureCreator`).
package struct AppleOfferSigner: Sendable {
    /// The separator Apple joins the classic signature's fields with (INVISIBLE SEPARATOR).
    package static let separator = "\u{2063}"

    private let key: P256.Signing.PrivateKey
    /// The key's id in App Store Connect.
    package let keyID: String
    /// The team's issuer id (the JWS forms' `iss`).
    package let issuerID: String
    /// The app's bundle id.
    package let bundleID: String

    package init(key: P256.Signing.PrivateKey, keyID: String, issuerID: String, bundleID: String) {
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }

    /// What the device hands StoreKit with a classic promotional offer.
    package struct ClassicSignature: Sendable, Equatable {
        package var keyID: String
        /// Lowercase, as signed.
        package var nonce: UUID
        /// UNIX milliseconds; StoreKit accepts the signature for 24 hours after it.
        package var timestamp: Int64
        /// Base64 of the DER-encoded ECDSA signature.
        package var signature: String
    }

    /// The message the classic signature signs: bundle id, key id, product id, offer id, the application username
    /// (the app account token, lowercased; may be empty), the nonce (lowercased) and the timestamp, joined by
    /// ``separator``.
    package func classicMessage(
        productID: String, offerID: String, applicationUsername: String, nonce: UUID, timestamp: Int64
    ) -> String {
        [
            bundleID, keyID, productID, offerID, applicationUsername.lowercased(), nonce.uuidString.lowercased(),
            String(timestamp),
        ].joined(separator: Self.separator)
    }

    /// A classic promotional offer signature with a new nonce, at `now`.
    package func classicSignature(
        productID: String, offerID: String, applicationUsername: String, nonce: UUID = UUID(), now: Date = Date()
    ) throws -> ClassicSignature {
        let timestamp = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let message = classicMessage(
            productID: productID, offerID: offerID, applicationUsername: applicationUsername, nonce: nonce,
            timestamp: timestamp)
        let signature = try key.signature(for: Data(message.utf8))
        return ClassicSignature(
            keyID: keyID, nonce: nonce, timestamp: timestamp,
            signature: signature.derRepresentation.base64EncodedString())
    }

    /// A promotional offer as a JWS (`aud` `promotional-offer`); `transactionID` is any transaction of the customer
    /// (its app transaction id will do), optional but recommended by Apple.
    package func promotionalOfferJWS(
        productID: String, offerID: String, transactionID: String?, now: Date = Date(), nonce: UUID = UUID()
    ) throws -> String {
        try sign(
            OfferClaims(
                audience: "promotional-offer", bundleID: bundleID, issuerID: issuerID, now: now, nonce: nonce,
                productID: productID, offerIdentifier: offerID, transactionID: transactionID))
    }

    /// An introductory offer eligibility as a JWS (`aud` `introductory-offer-eligibility`): whether StoreKit may
    /// offer the customer the product's introductory offer, whatever its own records say.
    package func introductoryOfferEligibilityJWS(
        productID: String, allowIntroductoryOffer: Bool, transactionID: String, now: Date = Date(),
        nonce: UUID = UUID()
    ) throws -> String {
        try sign(
            OfferClaims(
                audience: "introductory-offer-eligibility", bundleID: bundleID, issuerID: issuerID, now: now,
                nonce: nonce, productID: productID, transactionID: transactionID,
                allowIntroductoryOffer: allowIntroductoryOffer))
    }

    private func sign(_ claims: OfferClaims) throws -> String {
        try ES256Signer(key: key, header: JWSHeader(alg: "ES256", kid: keyID, typ: "JWT")).sign(claims)
    }
}

/// The claims of the JWS forms: the common ones (`bid`, `iss`, `aud`, `iat`, `nonce`) and the feature's own.
package struct OfferClaims: Codable, Sendable, Equatable {
    package var bid: String
    package var iss: String
    package var aud: String
    /// Issued at, UNIX seconds.
    package var iat: Int64
    /// A one-time UUID, lowercase.
    package var nonce: String
    package var productId: String
    package var offerIdentifier: String?
    package var transactionId: String?
    package var allowIntroductoryOffer: Bool?

    package init(
        audience: String, bundleID: String, issuerID: String, now: Date, nonce: UUID, productID: String,
        offerIdentifier: String? = nil, transactionID: String? = nil, allowIntroductoryOffer: Bool? = nil
    ) {
        self.bid = bundleID
        self.iss = issuerID
        self.aud = audience
        self.iat = Int64(now.timeIntervalSince1970)
        self.nonce = nonce.uuidString.lowercased()
        self.productId = productID
        self.offerIdentifier = offerIdentifier
        self.transactionId = transactionID
        self.allowIntroductoryOffer = allowIntroductoryOffer
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bid, forKey: .bid)
        try container.encode(iss, forKey: .iss)
        try container.encode(aud, forKey: .aud)
        try container.encode(iat, forKey: .iat)
        try container.encode(nonce, forKey: .nonce)
        try container.encode(productId, forKey: .productId)
        try container.encodeIfPresent(offerIdentifier, forKey: .offerIdentifier)
        try container.encodeIfPresent(transactionId, forKey: .transactionId)
        try container.encodeIfPresent(allowIntroductoryOffer, forKey: .allowIntroductoryOffer)
    }
}
