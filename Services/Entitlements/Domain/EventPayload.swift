/// The body of an event: what changed, in the same words as customer info. Absent fields are left out.
struct EventPayload: Codable, Sendable, Equatable {
    var productID: String?
    var storeProductID: String?
    var entitlementID: String?
    var store: String?
    var environment: String?
    var transactionID: String?
    var originalTransactionID: String?
    var purchaseDate: String?
    var expiresAt: String?
    var quantity: Int64?
    var balance: Int64?
    /// A refund of some units of a multi-quantity purchase (Google Play's quantity-based partial refunds), and the
    /// refund that took back the last of them: the store units this refund covered.
    var refundedQuantity: Int64?
    /// Such a refund: consumable units it should have taken back that the customer had already spent (the balance
    /// stops at zero).
    var unrecoveredQuantity: Int64?
    /// Price in thousandths of `currency`; never counted as revenue when `environment` is `sandbox`.
    var priceMilliunits: Int64?
    var currency: String?
    var source: String?
    var reason: String?
    var fromAppUserID: String?
    var toAppUserID: String?
    var aliases: [String]?
    var grantID: String?
    /// The app transaction a consent was rescinded for.
    var appTransactionID: String?
    /// Apple's external purchase id.
    var externalPurchaseID: String?
    /// When Apple created the external purchase token.
    var tokenCreationDate: String?
    /// The store's subtype of an app-level fact (`UNREPORTED`, `ACTIVE_TOKEN_REMINDER`, `CREATED`).
    var subtype: String?

    enum CodingKeys: String, CodingKey {
        case store, environment, quantity, balance, currency, source, reason, aliases, subtype
        case productID = "product_id"
        case storeProductID = "store_product_id"
        case entitlementID = "entitlement_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case purchaseDate = "purchase_date"
        case expiresAt = "expires_at"
        case priceMilliunits = "price_milliunits"
        case fromAppUserID = "from_app_user_id"
        case toAppUserID = "to_app_user_id"
        case grantID = "grant_id"
        case refundedQuantity = "refunded_quantity"
        case unrecoveredQuantity = "unrecovered_quantity"
        case appTransactionID = "app_transaction_id"
        case externalPurchaseID = "external_purchase_id"
        case tokenCreationDate = "token_creation_date"
    }
}
