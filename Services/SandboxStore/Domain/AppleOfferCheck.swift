import Crypto
import Foundation
import HTTPTypes
import ShopkeeperHTTP
import ShopkeeperStores

/// A promotional offer as StoreKit takes it with the classic signature
/// (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`, `SKPaymentDiscount`).
struct PromotionalOfferSignature: Decodable, Sendable {
    var offerId: String
    var keyId: String
    var nonce: String
    /// UNIX milliseconds.
    var timestamp: Int64
    /// Base64 of the DER ECDSA signature.
    var signature: String

    enum CodingKeys: String, CodingKey {
        case nonce, timestamp, signature
        case offerId = "offer_id"
        case keyId = "key_id"
    }
}

/// Checks the offer a purchase carries as StoreKit and the App Store do: the signature by one of the app's
/// In-App Purchase keys (the keys this sandbox issued), over this bundle and product, fresh (24 hours); an
/// introductory offer eligibility JWS decides whether the purchase may take the introductory offer.
struct AppleOfferCheck: Sendable {
    /// How long after its timestamp StoreKit accepts a signed offer.
    static let lifetimeSeconds: Int64 = 24 * 3_600

    let store: SandboxStore

    /// What the checked offers change in the purchase.
    struct Verdict: Equatable {
        /// A promotional offer to apply (offer type 2).
        var promotionalOfferID: String?
        /// `false` when a signed eligibility forbids the introductory offer.
        var introductoryAllowed: Bool?
    }

    func check(_ body: CreateAppleTransactionRequest, now: Date = Date()) async throws(AppleOfferError) -> Verdict {
        var verdict = Verdict()
        let token = body.appAccountToken?.lowercased() ?? ""
        if let offer = body.promotionalOffer {
            let key = try await publicKey(id: offer.keyId, bundleId: body.bundleId)
            let message = [
                body.bundleId, offer.keyId, body.productId, offer.offerId, token, offer.nonce.lowercased(),
                String(offer.timestamp),
            ].joined(separator: AppleOfferSigner.separator)
            guard let der = Data(base64Encoded: offer.signature),
                let signature = try? P256.Signing.ECDSASignature(derRepresentation: der),
                key.isValidSignature(signature, for: Data(message.utf8))
            else { throw .invalidSignature("the promotional offer's signature does not verify") }
            try Self.checkFresh(seconds: offer.timestamp / 1000, now: now)
            verdict.promotionalOfferID = offer.offerId
        }
        if let jws = body.promotionalOfferJWS {
            let claims = try await verified(jws, audience: "promotional-offer", body: body, now: now)
            guard let offerID = claims.offerIdentifier else {
                throw .invalidSignature("the promotional offer JWS names no offerIdentifier")
            }
            verdict.promotionalOfferID = offerID
        }
        if let jws = body.introductoryOfferEligibilityJWS {
            let claims = try await verified(jws, audience: "introductory-offer-eligibility", body: body, now: now)
            verdict.introductoryAllowed = claims.allowIntroductoryOffer ?? false
        }
        if verdict.introductoryAllowed == false, body.offerType == 1 {
            throw .ineligible("the signed introductory offer eligibility does not allow the introductory offer")
        }
        return verdict
    }

    /// A JWS form's claims, after its signature, audience, bundle, product and age are checked.
    private func verified(_ jws: String, audience: String, body: CreateAppleTransactionRequest, now: Date)
        async throws(AppleOfferError) -> OfferClaims
    {
        guard let parsed = CompactJWS(jws), parsed.header.alg == "ES256", let keyID = parsed.header.kid else {
            throw .invalidSignature("the \(audience) JWS is not an ES256 compact JWS with a kid")
        }
        let key = try await publicKey(id: keyID, bundleId: body.bundleId)
        guard parsed.hasValidES256Signature(by: key), let claims = parsed.decodedPayload(as: OfferClaims.self) else {
            throw .invalidSignature("the \(audience) JWS's signature does not verify")
        }
        guard claims.aud == audience, claims.bid == body.bundleId, claims.productId == body.productId else {
            throw .invalidSignature("the \(audience) JWS is for another audience, app or product")
        }
        try Self.checkFresh(seconds: claims.iat, now: now)
        return claims
    }

    /// The public key of an In-App Purchase key this sandbox issued for the bundle's team.
    private func publicKey(id: String, bundleId: String) async throws(AppleOfferError) -> P256.Signing.PublicKey {
        guard let record = await store.appleKey(id: id),
            await store.bundleIds(ofIssuer: record.issuerId).contains(bundleId),
            let key = try? P256.Signing.PublicKey(pemRepresentation: record.publicKey)
        else { throw .invalidSignature("key \(id) is no In-App Purchase key of this app's team") }
        return key
    }

    private static func checkFresh(seconds: Int64, now: Date) throws(AppleOfferError) {
        let age = Int64(now.timeIntervalSince1970) - seconds
        guard age <= lifetimeSeconds, age >= -60 else {
            throw .invalidSignature("the offer was signed more than 24 hours ago (or in the future)")
        }
    }
}

/// StoreKit's answers to an offer it does not take.
enum AppleOfferError: ProblemError, Equatable {
    /// `Product.PurchaseError.invalidOfferSignature`.
    case invalidSignature(String)
    /// `Product.PurchaseError.ineligibleForOffer`.
    case ineligible(String)

    var status: HTTPResponse.Status { .badRequest }

    var code: String {
        switch self {
        case .invalidSignature: "invalid_offer_signature"
        case .ineligible: "ineligible_for_offer"
        }
    }

    var detail: String {
        switch self {
        case .invalidSignature(let why), .ineligible(let why): "StoreKit would refuse this offer: \(why)."
        }
    }
}
