import Foundation
import ShopkeeperStores

/// A Google Play purchase the sandbox sold: a one-time product or a subscription.
struct GooglePurchaseRecord: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        case product, subscription
    }

    var purchaseToken: String
    var orderId: String
    var packageName: String
    var productId: String
    var kind: Kind
    var quantity: Int
    /// UNIX milliseconds.
    var purchaseTime: Int64
    var state: GooglePurchaseState
    var acknowledged: Bool
    var consumed: Bool
    var obfuscatedAccountId: String?
    /// A license-testing purchase (`purchaseType` 0, `testPurchase` {}).
    var test: Bool
    var regionCode: String
    /// Subscriptions: UNIX milliseconds.
    var expiryTime: Int64?
    var autoRenewing: Bool
    var basePlanId: String?
    var voided: Bool
    /// Subscriptions the clock moves: the length of one period in ms (compressed by the time scale).
    var periodMilliseconds: Int64?
    /// Billing fails at every renewal until set back.
    var billingFails: Bool?
    /// UNIX ms: in the grace period until then (access continues; `expiryTime` is extended to it).
    var graceUntil: Int64?
    /// UNIX ms: on account hold until then (no access).
    var holdUntil: Int64?
    /// The subscription ended (`SUBSCRIPTION_EXPIRED` sent, or voided): the clock leaves it alone.
    var ended: Bool?
    /// Renewals so far: renewal orders are `<order id>..0`, `..1`, ...
    var renewals: Int?
    /// The subscription this one replaced (an upgrade or downgrade): `linkedPurchaseToken`.
    var linkedPurchaseToken: String?
    /// The Google account that bought it, when the control named one: that account cannot buy the same one-time
    /// product again until this purchase is consumed (or voided).
    var buyer: String?
    /// Units of a multi-quantity one-time purchase refunded so far by quantity-based partial refunds (all of them:
    /// the purchase is voided as well).
    var refundedQuantity: Int?

    /// Whether this purchase keeps its buyer from buying the same one-time product again, as Play Billing does: a
    /// one-time product purchased (or pending) and neither consumed nor voided.
    func blocksRepurchase(by buyer: String, of productId: String, in packageName: String) -> Bool {
        self.buyer == buyer && kind == .product && self.productId == productId && self.packageName == packageName
            && state != .canceled && !consumed && !voided
    }

    /// The first order's id (renewal orders add `..N`).
    var initialOrderId: String {
        orderId.components(separatedBy: "..").first ?? orderId
    }

    /// The Play Developer API's view of a one-time product purchase.
    var productPurchase: GoogleProductPurchase {
        GoogleProductPurchase(
            purchaseTimeMillis: String(purchaseTime), purchaseState: state.rawValue,
            consumptionState: consumed ? 1 : 0, orderId: orderId,
            purchaseType: test ? GooglePurchaseType.test.rawValue : nil,
            acknowledgementState: acknowledged ? 1 : 0, purchaseToken: purchaseToken, productId: productId,
            quantity: quantity, obfuscatedExternalAccountId: obfuscatedAccountId, regionCode: regionCode,
            refundableQuantity: voided ? 0 : max(0, quantity - (refundedQuantity ?? 0))
        )
    }

    /// The subscription's state at `now`, as `subscriptionsv2.get` reports it.
    func subscriptionState(at now: Date) -> GoogleSubscriptionState {
        let milliseconds = now.appleMilliseconds
        if state == .pending { return .pending }
        if voided { return .expired }
        if state == .canceled { return .pendingPurchaseCanceled }
        if let graceUntil, graceUntil > milliseconds { return .inGracePeriod }
        if let holdUntil, holdUntil > milliseconds { return .onHold }
        if let expiryTime, expiryTime <= milliseconds { return .expired }
        return autoRenewing ? .active : .canceled
    }

    /// The Play Developer API's view of a subscription.
    func subscriptionPurchase(at now: Date) -> GoogleSubscriptionPurchaseV2 {
        let renews = autoRenewing && !voided
        return GoogleSubscriptionPurchaseV2(
            regionCode: regionCode, startTime: GoogleTime.rfc3339(milliseconds: purchaseTime),
            subscriptionState: subscriptionState(at: now).rawValue, latestOrderId: orderId,
            linkedPurchaseToken: linkedPurchaseToken,
            acknowledgementState: (acknowledged ? GoogleAcknowledgementState.acknowledged : .pending).rawValue,
            lineItems: [
                GoogleSubscriptionLineItem(
                    productId: productId, expiryTime: expiryTime.map(GoogleTime.rfc3339(milliseconds:)),
                    autoRenewingPlan: GoogleAutoRenewingPlan(autoRenewEnabled: renews),
                    offerDetails: GoogleOfferDetails(basePlanId: basePlanId ?? "base"),
                    latestSuccessfulOrderId: state == .pending ? nil : orderId
                )
            ],
            testPurchase: test ? GoogleTestPurchase() : nil,
            externalAccountIdentifiers: obfuscatedAccountId.map {
                GoogleExternalAccountIdentifiers(obfuscatedExternalAccountId: $0)
            }
        )
    }
}

/// A voided (refunded or revoked) Google Play purchase.
struct GoogleVoidedRecord: Codable, Sendable, Equatable {
    var purchaseToken: String
    var orderId: String
    var purchaseTime: Int64
    var voidedTime: Int64
    var voidedSource: Int
    var voidedReason: Int
    var packageName: String
    var isSubscription: Bool
    /// The units a quantity-based partial refund voided; `nil` for a full refund. Listed only to a query with
    /// `includeQuantityBasedPartialRefund=true`, as Google does.
    var voidedQuantity: Int? = nil

    var voidedPurchase: GoogleVoidedPurchase {
        GoogleVoidedPurchase(
            purchaseToken: purchaseToken, purchaseTimeMillis: String(purchaseTime),
            voidedTimeMillis: String(voidedTime), orderId: orderId, voidedSource: voidedSource,
            voidedReason: voidedReason, voidedQuantity: voidedQuantity
        )
    }
}

/// A Google service account the sandbox issued; only its public key is kept.
struct GoogleServiceAccountRecord: Codable, Sendable, Equatable {
    var clientEmail: String
    var privateKeyId: String
    var packageName: String
    /// SPKI PEM of the RSA key.
    var publicKey: String
    /// The `aud` its assertions must carry.
    var tokenUri: String
}

/// An access token handed out by `/google/token`.
struct GoogleAccessTokenRecord: Codable, Sendable, Equatable {
    var token: String
    var clientEmail: String
    /// UNIX milliseconds.
    var expiresAt: Int64
}

/// RFC 3339 times as Google writes them (`2025-01-31T12:00:00.123Z`).
enum GoogleTime {
    static func rfc3339(milliseconds: Int64) -> String {
        Date(appleMilliseconds: milliseconds).formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
