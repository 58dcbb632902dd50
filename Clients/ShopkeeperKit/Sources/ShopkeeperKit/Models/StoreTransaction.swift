import Foundation

/// A verified store transaction, in one shape for every store (schema `StoreTransaction`).
public struct StoreTransaction: Codable, Hashable, Sendable {
    /// The store.
    public var store: StorePlatform
    /// `production` or `sandbox`.
    public var environment: StoreEnvironment
    /// The store's id of this transaction.
    public var transactionID: String
    /// The transaction that started its chain.
    public var originalTransactionID: String
    /// The product's id at the store.
    public var storeProductID: String
    /// The kind of purchase, when the store says.
    public var type: ProductType?
    /// Units bought.
    public var quantity: Int
    /// When the store charged.
    public var purchaseDate: Date
    /// When the original transaction was made.
    public var originalPurchaseDate: Date?
    /// When the paid period ends (subscriptions).
    public var expiresDate: Date?
    /// When the store refunded or revoked it.
    public var revocationDate: Date?
    /// `app_issue` or `other`.
    public var revocationReason: ServerValue?
    /// `purchased` or `family_shared`.
    public var ownershipType: ServerValue
    /// The offer it was bought with.
    public var offer: StoreOffer?
    /// Apple's `appAccountToken`, lowercase.
    public var appAccountToken: String?
    /// Google's obfuscated account id.
    public var obfuscatedAccountID: String?
    /// Price in thousandths of `currency`.
    public var priceMilliunits: Int64?
    /// ISO 4217 code.
    public var currency: String?
    /// The customer's storefront.
    public var storefront: String?

    enum CodingKeys: String, CodingKey {
        case store, environment, type, quantity, offer, currency, storefront
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case storeProductID = "store_product_id"
        case purchaseDate = "purchase_date"
        case originalPurchaseDate = "original_purchase_date"
        case expiresDate = "expires_date"
        case revocationDate = "revocation_date"
        case revocationReason = "revocation_reason"
        case ownershipType = "ownership_type"
        case appAccountToken = "app_account_token"
        case obfuscatedAccountID = "obfuscated_account_id"
        case priceMilliunits = "price_milliunits"
    }
}

/// The offer a purchase was made with (schema `StoreOffer`).
public struct StoreOffer: Codable, Hashable, Sendable {
    /// `introductory`, `promotional`, `offer_code`, `win_back` or `offer`.
    public var type: ServerValue
    /// The offer's id at the store.
    public var identifier: String?
    /// `free_trial`, `pay_as_you_go`, `pay_up_front` or `one_time`.
    public var discountType: ServerValue?
    /// The offer's duration (ISO 8601).
    public var period: String?

    enum CodingKeys: String, CodingKey {
        case type, identifier, period
        case discountType = "discount_type"
    }
}

/// What applying one transaction did (schema `TransactionOutcome`).
public struct TransactionOutcome: Codable, Hashable, Sendable {
    /// The store.
    public var store: StorePlatform
    /// The store's transaction id.
    public var transactionID: String
    /// The catalog product, when known.
    public var productID: String?
    /// `granted`, `credited`, `already_applied`, `transferred`, `subscription_recorded`, `unknown_product`,
    /// `revoked`, `partially_refunded` (some units of a Play purchase refunded; it stays), `reinstated`, `not_owned`
    /// or (a restore only) `owned_by_other_account`.
    public var outcome: ServerValue

    enum CodingKeys: String, CodingKey {
        case store, outcome
        case transactionID = "transaction_id"
        case productID = "product_id"
    }
}

/// The answer to `POST /v1/purchases` (schema `PurchaseResponse`).
public struct PurchaseResponse: Codable, Hashable, Sendable {
    /// The transactions the proof proves, as recorded.
    public var transactions: [StoreTransaction]
    /// What applying each did.
    public var outcomes: [TransactionOutcome]
    /// What the customer owns now.
    public var customer: CustomerInfo?
    /// The app transaction presented (`signed_app_transaction`), once verified.
    public var appTransaction: AppTransactionResult?

    enum CodingKeys: String, CodingKey {
        case transactions, outcomes, customer
        case appTransaction = "app_transaction"
    }
}

/// The answer to `POST /v1/customers/{app_user_id}/restore` (schema `RestoreResponse`).
public struct RestoreResponse: Codable, Hashable, Sendable {
    /// The transactions the proofs prove.
    public var transactions: [StoreTransaction]
    /// What applying each did.
    public var outcomes: [TransactionOutcome]
    /// The proofs that did not verify.
    public var rejected: [RejectedProof]
    /// What the customer owns now.
    public var customer: CustomerInfo?
    /// The app transaction presented (`signed_app_transaction`), once verified; when it did not verify it is in
    /// ``rejected`` with pointer `/signed_app_transaction`.
    public var appTransaction: AppTransactionResult?

    enum CodingKeys: String, CodingKey {
        case transactions, outcomes, rejected, customer
        case appTransaction = "app_transaction"
    }
}

/// A verified StoreKit app transaction (`signed_app_transaction`) and what became of it (schema
/// `AppTransactionResult`).
public struct AppTransactionResult: Codable, Hashable, Sendable {
    /// Apple's `appTransactionId`: one per Apple account and app.
    public var appTransactionID: String
    /// `production` or `sandbox`.
    public var environment: StoreEnvironment
    /// The variant whose bundle id signed it (a paid `full` edition sold as an app of its own); `nil` for the app's
    /// own.
    public var variant: String?
    /// The app version (`CFBundleVersion`) the Apple account first got the app at.
    public var originalApplicationVersion: String?
    /// When the Apple account first got the app.
    public var originalPurchaseDate: Date?
    /// `recorded` (first presented now), `already_recorded` or `transferred` (from another customer).
    public var outcome: ServerValue

    enum CodingKeys: String, CodingKey {
        case environment, variant, outcome
        case appTransactionID = "app_transaction_id"
        case originalApplicationVersion = "original_application_version"
        case originalPurchaseDate = "original_purchase_date"
    }
}

/// A proof of a restore that did not verify (schema `RejectedProof`).
public struct RejectedProof: Codable, Hashable, Sendable {
    /// JSON pointer to the proof in the request.
    public var pointer: String
    /// Why (the codes of a purchase's `422`).
    public var code: String
    /// Explanation.
    public var detail: String
}

/// What a saved proof is worth now (schema `ReceiptValidationResult`).
public struct ReceiptValidationResult: Codable, Hashable, Sendable {
    /// `valid`, `revoked`, `expired` or `invalid`.
    public var status: ServerValue
    /// Why it is invalid.
    public var code: String?
    /// The transactions it proves, in their current state.
    public var transactions: [StoreTransaction]
    /// `delete` when the purchase's downloaded content must go.
    public var contentAction: ServerValue?

    enum CodingKeys: String, CodingKey {
        case status, code, transactions
        case contentAction = "content_action"
    }
}

/// What one spend did (schema `ConsumeResult`).
public struct ConsumeResult: Codable, Hashable, Sendable {
    /// The consumable spent.
    public var productID: String
    /// Units spent.
    public var consumed: Int
    /// Units left.
    public var balance: Int
    /// The customer as committed.
    public var customer: CustomerInfo

    enum CodingKeys: String, CodingKey {
        case consumed, balance, customer
        case productID = "product_id"
    }
}
