import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Verifies Google Play purchase tokens with the Play Developer API for an app's package.
struct GoogleProofVerifier: Sendable {
    let client: GooglePlayClient

    /// The purchase a token stands for, the acknowledgement it still needs, and (for an app that consumes
    /// consumables, a one-time purchase Google still has unconsumed) the consume it may need once granted.
    func verify(token: String, productID: String, kind: PlayPurchaseKind, credentials: GoogleCredentials)
        async throws(VerifierError) -> GoogleVerifiedPurchase
    {
        var verified: GoogleVerifiedPurchase
        switch kind {
        case .product:
            let purchase = try await client.product(productID, token: token, credentials: credentials)
            verified = GoogleVerifiedPurchase(
                transaction: try GoogleTransactionNormalizer.normalize(purchase, productID: productID, token: token))
            verified.acknowledgement =
                purchase.acknowledgementState == 1 ? nil : .product(productID: productID, token: token)
            // Whether it is a consumable is the catalog's to say, once it is granted (`GoogleConsumer`).
            if credentials.consumesConsumables, purchase.purchaseState == 0, purchase.consumptionState != 1 {
                verified.consumption = GoogleConsumption(productID: productID, token: token)
            }
        case .subscription:
            let purchase = try await client.subscription(token: token, credentials: credentials)
            verified = GoogleVerifiedPurchase(
                transaction: try GoogleTransactionNormalizer.normalize(purchase, productID: productID, token: token))
            verified.acknowledgement =
                purchase.acknowledgementState == GoogleAcknowledgementState.acknowledged.rawValue
                ? nil : .subscription(subscriptionID: verified.transaction.storeProductID, token: token)
        }
        let transaction = verified.transaction
        guard credentials.environments.contains(transaction.environment) else {
            throw .proofRejected(
                code: "wrong_environment",
                detail: "This app does not accept \(transaction.environment == .sandbox ? "test" : "real") purchases.")
        }
        if transaction.revocationDate != nil {
            verified.acknowledgement = nil
            verified.consumption = nil
        }
        return verified
    }
}

/// A verified Play purchase and what Google still expects of the server for it.
struct GoogleVerifiedPurchase: Sendable, Equatable {
    var transaction: StoreTransaction
    /// The acknowledgement it still needs (Google refunds purchases left unacknowledged for three days).
    var acknowledgement: GoogleAcknowledgement? = nil
    /// The consume it needs once granted, if the catalog says it is a consumable.
    var consumption: GoogleConsumption? = nil
}

/// Turns Play Developer API answers into the one transaction model of every store.
enum GoogleTransactionNormalizer {
    static func normalize(_ purchase: GoogleProductPurchase, productID: String, token: String) throws(VerifierError)
        -> StoreTransaction
    {
        if let returned = purchase.productId, returned != productID {
            throw .proofRejected(code: "wrong_product", detail: "The token is for product '\(returned)'.")
        }
        switch purchase.purchaseState {
        case 2:
            throw .proofRejected(
                code: "purchase_pending", detail: "The purchase is pending payment; it is not a purchase yet.")
        case 0, 1:
            break
        default:
            throw .proofRejected(code: "malformed_proof", detail: "Google reported an unknown purchase state.")
        }
        guard let millis = purchase.purchaseTimeMillis.flatMap(Int64.init) else {
            throw .proofRejected(code: "malformed_proof", detail: "Google reported no purchase time.")
        }
        let orderID = purchase.orderId.flatMap { $0.isEmpty ? nil : $0 } ?? token
        let purchased = Date(storeMilliseconds: millis)
        let quantity = max(1, purchase.quantity ?? 1)
        return StoreTransaction(
            store: .playStore,
            environment: purchase.purchaseType == 0 ? .sandbox : .production,
            transactionID: orderID,
            originalTransactionID: orderID,
            storeProductID: productID,
            type: nil,
            quantity: quantity,
            purchaseDate: purchased,
            revocationDate: purchase.purchaseState == 1 ? Date().wholeSeconds : nil,
            revocationReason: purchase.purchaseState == 1 ? .other : nil,
            obfuscatedAccountID: purchase.obfuscatedExternalAccountId,
            storefront: purchase.regionCode,
            refundedQuantity: refundedQuantity(of: purchase, quantity: quantity)
        )
    }

    /// The units of a multi-quantity purchase refunded so far: `quantity` less Google's `refundableQuantity` ("the
    /// quantity eligible for refund, i.e. quantity that hasn't been refunded", reflecting quantity-based partial
    /// refunds and full refunds); `nil` when Google does not say or nothing was refunded.
    static func refundedQuantity(of purchase: GoogleProductPurchase, quantity: Int) -> Int? {
        guard let refundable = purchase.refundableQuantity, refundable >= 0, refundable < quantity else { return nil }
        return quantity - refundable
    }

    static func normalize(_ purchase: GoogleSubscriptionPurchaseV2, productID: String, token: String)
        throws(VerifierError) -> StoreTransaction
    {
        switch purchase.subscriptionState.flatMap(GoogleSubscriptionState.init(rawValue:)) {
        case .pending:
            throw .proofRejected(
                code: "purchase_pending", detail: "The subscription is pending payment; it is not a purchase yet.")
        case .pendingPurchaseCanceled:
            throw .proofRejected(code: "purchase_canceled", detail: "The pending subscription purchase was canceled.")
        default:
            break
        }
        let item = purchase.lineItems?.first { $0.productId == productID } ?? purchase.lineItems?.first
        guard let item, let storeProductID = item.productId else {
            throw .proofRejected(code: "malformed_proof", detail: "Google reported no subscription line item.")
        }
        guard storeProductID == productID else {
            throw .proofRejected(code: "wrong_product", detail: "The token is for subscription '\(storeProductID)'.")
        }
        let orderID = purchase.latestOrderId ?? item.latestSuccessfulOrderId ?? token
        // Renewals are "<first order>..<n>"; the first order id identifies the subscription.
        let original = orderID.components(separatedBy: "..").first ?? orderID
        let start = purchase.startTime.flatMap(parse) ?? Date()
        return StoreTransaction(
            store: .playStore,
            environment: purchase.testPurchase == nil ? .production : .sandbox,
            transactionID: orderID,
            originalTransactionID: original,
            storeProductID: storeProductID,
            type: .autoRenewable,
            quantity: 1,
            purchaseDate: start.wholeSeconds,
            originalPurchaseDate: start.wholeSeconds,
            expiresDate: item.expiryTime.flatMap(parse)?.wholeSeconds,
            offer: item.offerDetails?.offerId.map { StoreOffer(type: "offer", identifier: $0) },
            obfuscatedAccountID: purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            storefront: purchase.regionCode
        )
    }

    private static func parse(_ text: String) -> Date? {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? withFraction.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
