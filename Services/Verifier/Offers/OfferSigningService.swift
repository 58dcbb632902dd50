import Crypto
import Foundation
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// Signs App Store subscription offers for a customer with the app's In-App Purchase key, and only those the
/// customer may have: a promotional offer for a customer who subscribed in the product's group before (on any
/// store), an introductory offer eligibility that says what Shopkeeper's cross-store eligibility says.
struct OfferSigningService: Sendable {
    let credentials: any CredentialsRepository
    let entitlements: EntitlementsClient
    var now: @Sendable () -> Date = { Date() }

    func sign(_ request: OfferSignatureRequest, appUserID: String, appID: String, requestID: String?) async throws
        -> OfferSignatureResponse
    {
        guard let apple = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard let key = apple.apiKey else { throw OfferSignatureError.apiKeyRequired }
        let context = try await entitlements.offerContext(
            OfferContextRequest(appUserID: appUserID, productID: request.productID, deviceID: request.deviceID),
            appID: appID, requestID: requestID)
        guard let storeProductID = context.appleProductID else {
            throw OfferSignatureError.notOnAppStore(request.productID)
        }
        let introductory = context.eligibility.introductory
        guard introductory.reason != .notASubscription else {
            throw OfferSignatureError.notASubscription(request.productID)
        }
        let signer: AppleOfferSigner
        do {
            signer = AppleOfferSigner(
                key: try P256.Signing.PrivateKey(pemRepresentation: key.privateKey), keyID: key.keyID,
                issuerID: key.issuerID, bundleID: apple.bundleID)
        } catch {
            throw VerifierError.storeCredentialsRejected(.apple, "the In-App Purchase key is not a P-256 private key")
        }
        let at = now()
        switch request.offer {
        case .promotional:
            guard let offerID = request.offerID else {
                throw RequestError.invalid("/offer_id", "is required for a promotional offer")
            }
            guard context.eligibility.subscribedInGroup else {
                throw OfferSignatureError.notEligible(request.productID)
            }
            let token = AppAccountToken.uuid(forAppUserID: appUserID).uuidString.lowercased()
            let classic = try signer.classicSignature(
                productID: storeProductID, offerID: offerID, applicationUsername: token, now: at)
            return OfferSignatureResponse(
                offer: .promotional, productID: request.productID, storeProductID: storeProductID, offerID: offerID,
                appAccountToken: token,
                signature: .init(
                    keyID: classic.keyID, nonce: classic.nonce.uuidString.lowercased(), timestamp: classic.timestamp,
                    signature: classic.signature),
                jws: try signer.promotionalOfferJWS(
                    productID: storeProductID, offerID: offerID, transactionID: context.appleTransactionID, now: at))
        case .introductory:
            guard let transactionID = context.appleTransactionID else {
                throw OfferSignatureError.appleTransactionRequired
            }
            return OfferSignatureResponse(
                offer: .introductory, productID: request.productID, storeProductID: storeProductID,
                jws: try signer.introductoryOfferEligibilityJWS(
                    productID: storeProductID, allowIntroductoryOffer: introductory.eligible,
                    transactionID: transactionID, now: at),
                allowIntroductoryOffer: introductory.eligible, reason: introductory.reason)
        }
    }
}
