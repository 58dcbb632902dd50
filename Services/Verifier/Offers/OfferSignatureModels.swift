import Foundation
import ShopkeeperModels

/// The body of `POST /v1/customers/{app_user_id}/offer-signatures`.
struct OfferSignatureRequest: Codable, Sendable {
    /// The catalog product the offer is of (an auto-renewable subscription sold on the App Store).
    var productID: String
    /// `promotional` or `introductory`.
    var offer: OfferKind
    /// The promotional offer's identifier in App Store Connect; required for `promotional`.
    var offerID: String?
    /// Also counts this device's trial for introductory eligibility.
    var deviceID: String?

    enum CodingKeys: String, CodingKey {
        case offer
        case productID = "product_id"
        case offerID = "offer_id"
        case deviceID = "device_id"
    }
}

/// The offers Shopkeeper signs.
enum OfferKind: String, Codable, Sendable {
    /// A promotional offer, for current and lapsed subscribers of the product's group.
    case promotional
    /// An introductory offer eligibility: whether StoreKit may offer the product's introductory offer.
    case introductory
}

/// What the app hands StoreKit: the classic signature and the JWS of a promotional offer, or the JWS of an
/// introductory offer eligibility.
struct OfferSignatureResponse: Encodable, Sendable {
    var offer: OfferKind
    var productID: String
    /// The App Store product id the signature is for.
    var storeProductID: String
    var offerID: String?
    /// The `appAccountToken` (`applicationUsername`) the classic signature signs: the app must buy with it.
    var appAccountToken: String?
    /// The classic signature (`SKPaymentDiscount`, `Product.PurchaseOption.promotionalOffer(offerID:keyID:...)`).
    var signature: ClassicSignatureView?
    /// The JWS form (`promotional-offer` or `introductory-offer-eligibility`).
    var jws: String
    /// Introductory only: what the JWS tells StoreKit, Shopkeeper's cross-store eligibility.
    var allowIntroductoryOffer: Bool?
    /// Introductory only: why not (the codes of `GET /v1/customers/{app_user_id}/eligibility`).
    var reason: EligibilityReason?

    struct ClassicSignatureView: Encodable, Sendable {
        var keyID: String
        var nonce: String
        var timestamp: Int64
        var signature: String

        enum CodingKeys: String, CodingKey {
            case nonce, timestamp, signature
            case keyID = "key_id"
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

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(offer, forKey: .offer)
        try container.encode(productID, forKey: .productID)
        try container.encode(storeProductID, forKey: .storeProductID)
        try container.encodeIfPresent(offerID, forKey: .offerID)
        try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
        try container.encodeIfPresent(signature, forKey: .signature)
        try container.encode(jws, forKey: .jws)
        if offer == .introductory {
            try container.encodeIfPresent(allowIntroductoryOffer, forKey: .allowIntroductoryOffer)
            try container.encode(reason, forKey: .reason)
        }
    }
}
