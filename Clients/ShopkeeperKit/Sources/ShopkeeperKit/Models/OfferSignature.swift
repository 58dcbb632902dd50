import Foundation

/// The App Store subscription offers the server signs (`offer` of `POST /v1/customers/{app_user_id}/offer-signatures`).
public enum OfferKind: String, Codable, Hashable, Sendable {
    /// A promotional offer, for customers who subscribed in the product's group before.
    case promotional
    /// An introductory offer eligibility: whether StoreKit may offer the product's introductory offer.
    case introductory
}

/// What StoreKit needs to give the customer an offer (schema `OfferSignature`): for a promotional offer the classic
/// signature (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`; buy with
/// ``appAccountToken``) and its JWS form; for an introductory offer the eligibility JWS
/// (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`).
public struct OfferSignature: Codable, Hashable, Sendable {
    public var offer: OfferKind
    /// The catalog product.
    public var productID: String
    /// The App Store product id it is signed for.
    public var storeProductID: String
    /// Promotional only: the offer's identifier.
    public var offerID: String?
    /// Promotional only: the `appAccountToken` the classic signature signs; the purchase must carry it.
    public var appAccountToken: UUID?
    /// Promotional only: the classic signature.
    public var signature: ClassicSignature?
    /// The JWS form.
    public var jws: String
    /// Introductory only: what the JWS tells StoreKit.
    public var allowIntroductoryOffer: Bool?
    /// Introductory only: why not (`intro_offer_used`, ...); `nil` when allowed.
    public var reason: ServerValue?

    /// The classic promotional offer signature, as StoreKit takes it.
    public struct ClassicSignature: Codable, Hashable, Sendable {
        public var keyID: String
        public var nonce: UUID
        /// UNIX milliseconds.
        public var timestamp: Int64
        /// Base64 of the DER-encoded ECDSA signature.
        public var signature: String

        enum CodingKeys: String, CodingKey {
            case nonce, timestamp, signature
            case keyID = "key_id"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(keyID, forKey: .keyID)
            try container.encode(nonce.uuidString.lowercased(), forKey: .nonce)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encode(signature, forKey: .signature)
        }
    }

    enum CodingKeys: String, CodingKey {
        case offer, signature, jws, reason
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case offerID = "offer_id"
        case appAccountToken = "app_account_token"
        case allowIntroductoryOffer = "allow_introductory_offer"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(offer, forKey: .offer)
        try container.encode(productID, forKey: .productID)
        try container.encode(storeProductID, forKey: .storeProductID)
        try container.encodeIfPresent(offerID, forKey: .offerID)
        try container.encodeIfPresent(appAccountToken?.uuidString.lowercased(), forKey: .appAccountToken)
        try container.encodeIfPresent(signature, forKey: .signature)
        try container.encode(jws, forKey: .jws)
        if offer == .introductory {
            try container.encodeIfPresent(allowIntroductoryOffer, forKey: .allowIntroductoryOffer)
            try container.encode(reason, forKey: .reason)
        }
    }
}
