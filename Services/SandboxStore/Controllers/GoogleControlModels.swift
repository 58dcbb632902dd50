import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /sandbox/google/service-accounts`.
struct CreateServiceAccountRequest: Decodable, Sendable {
    var packageName: String

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
    }
}

/// `POST /sandbox/google/purchases`.
struct CreateGooglePurchaseRequest: Decodable, Sendable {
    var packageName: String
    var productId: String
    /// `product` (one-time) or `subscription`.
    var type: String
    var quantity: Int?
    /// A pending purchase (paid later, e.g. cash): `POST .../complete` turns it into a purchased one.
    var pending: Bool?
    var obfuscatedAccountId: String?
    /// A license-testing purchase (default true).
    var test: Bool?
    var purchaseTime: Date?
    var expiryTime: Date?
    /// ISO 8601 duration of a subscription from its purchase time (`P1M`).
    var period: String?
    var basePlanId: String?
    var regionCode: String?
    /// The Google account buying (any name): it cannot buy a one-time product it owns unconsumed again
    /// (`409 item_already_owned`, Play Billing's `ITEM_ALREADY_OWNED`) until that purchase is consumed.
    var buyer: String?

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case productId = "product_id"
        case type, quantity, pending, test, period, buyer
        case obfuscatedAccountId = "obfuscated_account_id"
        case purchaseTime = "purchase_time"
        case expiryTime = "expiry_time"
        case basePlanId = "base_plan_id"
        case regionCode = "region_code"
    }

    /// `timeScale` compresses `period` (``SandboxStore/timeScale``); an explicit `expiry_time` is kept.
    func draft(now: Date = Date(), timeScale: Double = 1) throws(RequestError) -> GooglePurchaseDraft {
        var problems: [FieldProblem] = []
        func check(_ ok: Bool, _ pointer: String, _ detail: String) {
            if !ok { problems.append(FieldProblem(pointer: pointer, detail: detail)) }
        }
        check(CreateAppleTransactionRequest.isIdentifier(packageName), "/package_name", "must be a package name")
        check(CreateAppleTransactionRequest.isIdentifier(productId), "/product_id", "must be a product id")
        let kind = GooglePurchaseRecord.Kind(rawValue: type)
        check(kind != nil, "/type", "must be product or subscription")
        check((1...100).contains(quantity ?? 1), "/quantity", "must be 1 to 100")
        check(kind != .subscription || (quantity ?? 1) == 1, "/quantity", "must be 1 for a subscription")
        check(
            obfuscatedAccountId.map { (1...64).contains($0.utf8.count) } ?? true, "/obfuscated_account_id",
            "must be 1 to 64 characters, as Google allows")
        let duration = period.flatMap(ISODuration.init)
        check(period == nil || duration != nil, "/period", "must be an ISO 8601 duration such as P1M")
        let purchase = purchaseTime ?? now
        if kind == .subscription {
            check(
                expiryTime != nil || duration != nil, "/expiry_time", "is required for a subscription (or give period)")
        }
        if let expiryTime { check(expiryTime > purchase, "/expiry_time", "must be after the purchase time") }
        let region = regionCode ?? "US"
        check(CreateAppleTransactionRequest.isUpperLetters(region, count: 2), "/region_code", "must be like US")
        check(buyer.map { (1...128).contains($0.utf8.count) } ?? true, "/buyer", "must be 1 to 128 characters")
        guard problems.isEmpty, let kind else { throw .validationFailed(problems) }
        return GooglePurchaseDraft(
            packageName: packageName, productId: productId, kind: kind, quantity: quantity ?? 1,
            pending: pending ?? false, obfuscatedAccountId: obfuscatedAccountId, test: test ?? true,
            purchaseTime: purchase,
            expiryTime: kind == .subscription
                ? (expiryTime
                    ?? duration.map {
                        purchase.addingTimeInterval(Double($0.milliseconds(scaledBy: timeScale, from: purchase)) / 1000)
                    })
                : nil,
            basePlanId: basePlanId, regionCode: region, buyer: buyer
        )
    }
}

/// The answer to `POST /sandbox/google/purchases` (and its complete/refund controls, and
/// `GET /sandbox/google/purchases/{token}`): what the app would get from Play Billing, and where the purchase stands
/// at the store.
struct GooglePurchaseCreated: Codable, Sendable {
    var purchaseToken: String
    var orderId: String
    var packageName: String
    var productId: String
    var type: String
    /// 0 purchased, 1 canceled, 2 pending.
    var purchaseState: Int
    var acknowledged: Bool
    /// Consumed (`:consume`): its buyer may buy the product again.
    var consumed: Bool
    /// Refunded, charged back or revoked: listed by the voided-purchases API.
    var voided: Bool
    var buyer: String?
    var quantity: Int
    /// Units refunded so far by quantity-based partial refunds (and the last of them).
    var refundedQuantity: Int

    enum CodingKeys: String, CodingKey {
        case quantity
        case refundedQuantity = "refunded_quantity"
        case purchaseToken = "purchase_token"
        case orderId = "order_id"
        case packageName = "package_name"
        case productId = "product_id"
        case type
        case purchaseState = "purchase_state"
        case acknowledged, consumed, voided, buyer
    }

    init(_ record: GooglePurchaseRecord) {
        purchaseToken = record.purchaseToken
        orderId = record.orderId
        packageName = record.packageName
        productId = record.productId
        type = record.kind.rawValue
        purchaseState = record.state.rawValue
        acknowledged = record.acknowledged
        consumed = record.consumed
        voided = record.voided
        buyer = record.buyer
        quantity = record.quantity
        refundedQuantity = record.refundedQuantity ?? 0
    }
}

/// `POST /sandbox/google/purchases/{token}/refund`.
struct RefundGooglePurchaseRequest: Decodable, Sendable {
    /// Google's `voidedReason` (0 other, default ... 7 chargeback).
    var voidedReason: Int?
    /// Google's `voidedSource` (0 user, default; 1 developer; 2 Google).
    var voidedSource: Int?
    /// `false`: no real-time developer notification is sent, as when one is lost: only the voided-purchases list
    /// shows the refund. Default `true`.
    var notify: Bool?
    /// Units of a multi-quantity one-time purchase to refund (a quantity-based partial refund: the notification's
    /// `refundType` is 2, the voided-purchases list gives `voidedQuantity`); absent: the whole purchase, as before.
    var quantity: Int?

    enum CodingKeys: String, CodingKey {
        case notify, quantity
        case voidedReason = "voided_reason"
        case voidedSource = "voided_source"
    }
}
