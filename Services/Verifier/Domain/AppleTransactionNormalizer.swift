import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Turns Apple's transaction payload into the one transaction model of every store.
enum AppleTransactionNormalizer {
    /// The normalized transaction, or why the payload cannot be one.
    static func normalize(_ payload: AppleTransactionPayload) throws(VerifierError) -> StoreTransaction {
        func missing(_ field: String) -> VerifierError {
            .proofRejected(code: "malformed_proof", detail: "The signed transaction has no \(field).")
        }
        guard let transactionID = payload.transactionId, !transactionID.isEmpty else { throw missing("transactionId") }
        guard let productID = payload.productId, !productID.isEmpty else { throw missing("productId") }
        guard let purchase = payload.purchaseDate else { throw missing("purchaseDate") }
        guard let rawType = payload.type, let appleType = AppleProductType(rawValue: rawType) else {
            throw missing("known type")
        }
        guard let rawEnvironment = payload.environment, let environment = AppleEnvironment(rawValue: rawEnvironment)
        else { throw missing("known environment") }

        return StoreTransaction(
            store: .appStore,
            environment: storeEnvironment(environment),
            transactionID: transactionID,
            originalTransactionID: payload.originalTransactionId ?? transactionID,
            storeProductID: productID,
            type: productType(appleType),
            quantity: max(1, payload.quantity ?? 1),
            purchaseDate: Date(storeMilliseconds: purchase),
            originalPurchaseDate: payload.originalPurchaseDate.map(Date.init(storeMilliseconds:)),
            expiresDate: payload.expiresDate.map(Date.init(storeMilliseconds:)),
            revocationDate: payload.revocationDate.map(Date.init(storeMilliseconds:)),
            revocationReason: payload.revocationDate == nil
                ? nil : (payload.revocationReason == 1 ? .appIssue : .other),
            ownershipType: payload.inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased,
            offer: offer(payload),
            appAccountToken: payload.appAccountToken?.lowercased(),
            priceMilliunits: payload.price,
            currency: payload.currency,
            storefront: payload.storefront
        )
    }

    /// Apple's environment in Shopkeeper's words: only `Production` is real money, and proofs Xcode signed stay
    /// marked as such (`xcode`, `local_testing`) in every fact, customer info and event.
    static func storeEnvironment(_ environment: AppleEnvironment) -> StoreEnvironment {
        switch environment {
        case .production: .production
        case .sandbox: .sandbox
        case .xcode: .xcode
        case .localTesting: .localTesting
        }
    }

    static func productType(_ type: AppleProductType) -> ProductType {
        switch type {
        case .consumable: .consumable
        case .nonConsumable: .nonConsumable
        case .autoRenewable: .autoRenewable
        case .nonRenewing: .nonRenewing
        }
    }

    private static func offer(_ payload: AppleTransactionPayload) -> StoreOffer? {
        guard let offerType = payload.offerType else { return nil }
        let name =
            switch offerType {
            case 1: "introductory"
            case 2: "promotional"
            case 3: "offer_code"
            case 4: "win_back"
            default: "apple_\(offerType)"
            }
        return StoreOffer(
            type: name, identifier: payload.offerIdentifier, discountType: payload.offerDiscountType?.lowercased(),
            period: payload.offerPeriod)
    }
}
