import Foundation
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `POST /sandbox/apple/transactions`.
struct CreateAppleTransactionRequest: Decodable, Sendable {
    var bundleId: String
    var productId: String
    /// Apple's type string, e.g. `Auto-Renewable Subscription`.
    var type: String
    var quantity: Int?
    /// `Sandbox` (default) or `Production`.
    var environment: String?
    var appAccountToken: String?
    var purchaseDate: Date?
    var expiresDate: Date?
    /// ISO 8601 duration (`P1M`) the subscription lasts from its purchase date.
    var period: String?
    var offerType: Int?
    var offerIdentifier: String?
    var offerDiscountType: String?
    var offerPeriod: String?
    /// Milliunits.
    var price: Int64?
    var currency: String?
    var storefront: String?
    var storefrontId: String?
    var originalTransactionId: String?
    var appAppleId: Int64?
    var subscriptionGroupIdentifier: String?
    /// The app's `CFBundleVersion` in the receipt (default `1.0`).
    var appVersion: String?
    /// A promotional offer with the classic signature, checked as StoreKit does.
    var promotionalOffer: PromotionalOfferSignature?
    /// A promotional offer's JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`).
    var promotionalOfferJWS: String?
    /// An introductory offer eligibility JWS (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`).
    var introductoryOfferEligibilityJWS: String?

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case productId = "product_id"
        case type, quantity, environment, period, price, currency, storefront
        case appAccountToken = "app_account_token"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case offerType = "offer_type"
        case offerIdentifier = "offer_identifier"
        case offerDiscountType = "offer_discount_type"
        case offerPeriod = "offer_period"
        case storefrontId = "storefront_id"
        case originalTransactionId = "original_transaction_id"
        case appAppleId = "app_apple_id"
        case subscriptionGroupIdentifier = "subscription_group_identifier"
        case appVersion = "app_version"
        case promotionalOffer = "promotional_offer"
        case promotionalOfferJWS = "promotional_offer_jws"
        case introductoryOfferEligibilityJWS = "introductory_offer_eligibility_jws"
    }

    /// Apple's storefront ids of a few countries; others need `storefront_id`.
    static let storefrontIds = [
        "USA": "143441", "FRA": "143442", "DEU": "143443", "GBR": "143444", "AUT": "143445", "ITA": "143450",
        "CAN": "143455", "AUS": "143460", "JPN": "143462", "ESP": "143454", "NLD": "143452", "CHE": "143459",
    ]

    static let offerDiscountTypes: Set<String> = ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME"]

    /// Checks every field and reports every problem at once.
    func draft(now: Date = Date()) throws(RequestError) -> AppleTransactionDraft {
        var problems: [FieldProblem] = []
        func check(_ ok: Bool, _ pointer: String, _ detail: String) {
            if !ok { problems.append(FieldProblem(pointer: pointer, detail: detail)) }
        }
        check(Self.isIdentifier(bundleId), "/bundle_id", "must be a bundle id such as com.example.app")
        check(Self.isIdentifier(productId), "/product_id", "must be a product id (letters, digits, '.', '_', '-')")
        let productType = AppleProductType(rawValue: type)
        check(
            productType != nil, "/type",
            "must be one of " + AppleProductType.allCases.map(\.rawValue).joined(separator: ", "))
        check((1...100).contains(quantity ?? 1), "/quantity", "must be 1 to 100")
        let appleEnvironment = AppleEnvironment(rawValue: environment ?? "Sandbox")
        check(
            appleEnvironment == .sandbox || appleEnvironment == .production, "/environment",
            "must be Sandbox or Production")
        let token = appAccountToken.flatMap(UUID.init(uuidString:))
        check(appAccountToken == nil || token != nil, "/app_account_token", "must be a UUID")
        let duration = period.flatMap(ISODuration.init)
        check(period == nil || duration != nil, "/period", "must be an ISO 8601 duration such as P1M")
        let purchase = purchaseDate ?? now
        if productType == .autoRenewable {
            check(
                expiresDate != nil || duration != nil || originalTransactionId != nil, "/expires_date",
                "is required for an auto-renewable subscription (or give period)")
        }
        if let expiresDate { check(expiresDate > purchase, "/expires_date", "must be after the purchase date") }
        check(offerType.map { (1...4).contains($0) } ?? true, "/offer_type", "must be 1 to 4")
        check(
            offerDiscountType.map(Self.offerDiscountTypes.contains) ?? true, "/offer_discount_type",
            "must be one of " + Self.offerDiscountTypes.sorted().joined(separator: ", "))
        check((price ?? 0) >= 0, "/price", "must not be negative")
        let currencyCode = currency ?? "USD"
        check(Self.isUpperLetters(currencyCode, count: 3), "/currency", "must be an ISO 4217 code such as USD")
        let store = storefront ?? "USA"
        check(Self.isUpperLetters(store, count: 3), "/storefront", "must be an ISO 3166-1 alpha-3 code such as USA")
        let storeId = storefrontId ?? Self.storefrontIds[store]
        check(storeId != nil, "/storefront_id", "is required for storefront \(store)")
        check((appAppleId ?? 1) > 0, "/app_apple_id", "must be positive")
        check(appVersion.map(Self.isVersion) ?? true, "/app_version", "must be a version such as 1.0 or 42")
        guard problems.isEmpty, let productType, let appleEnvironment, let storeId else {
            throw .validationFailed(problems)
        }
        return AppleTransactionDraft(
            bundleId: bundleId, productId: productId, type: productType, quantity: quantity ?? 1,
            environment: appleEnvironment, appAccountToken: token?.uuidString.lowercased(), purchaseDate: purchase,
            expiresDate: expiresDate, period: duration, offerType: offerType, offerIdentifier: offerIdentifier,
            offerDiscountType: offerDiscountType, offerPeriod: offerPeriod,
            price: price ?? (offerDiscountType == "FREE_TRIAL" ? 0 : 990), currency: currencyCode, storefront: store,
            storefrontId: storeId, originalTransactionId: originalTransactionId, appAppleId: appAppleId,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier, appVersion: appVersion
        )
    }

    /// A `CFBundleVersion`: 1 to 64 characters, letters, digits, `.` and `-`.
    static func isVersion(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && isIdentifier(text) && !text.utf8.contains(0x5f)
    }

    static func isIdentifier(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || byte == 0x2e || byte == 0x5f || byte == 0x2d
            }
    }

    static func isUpperLetters(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5a }
    }
}

/// The answer to `POST /sandbox/apple/transactions`: the proof an app would get from StoreKit.
struct AppleTransactionCreated: Codable, Sendable {
    var transactionId: String
    var originalTransactionId: String
    var orderId: String
    var environment: String
    /// The StoreKit 2 JWS (`Transaction.jwsRepresentation`).
    var signedTransaction: String
    /// The legacy app receipt (base64 PKCS#7) of this customer, as `Bundle.main.appStoreReceiptURL` would hold it
    /// right after the purchase.
    var receiptData: String

    enum CodingKeys: String, CodingKey {
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case orderId = "order_id"
        case environment
        case signedTransaction = "signed_transaction"
        case receiptData = "receipt_data"
    }
}

/// `POST /sandbox/apple/transactions/{id}/refund` and `/revoke`.
struct RevokeAppleTransactionRequest: Decodable, Sendable {
    /// Apple's `revocationReason`: 0 another reason (default), 1 an issue in the app.
    var reason: Int?
}

/// `POST /sandbox/apple/api-keys`.
struct CreateAppleAPIKeyRequest: Decodable, Sendable {
    var bundleId: String
    /// Join an existing issuer (team); a new one is made when absent.
    var issuerId: String?

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case issuerId = "issuer_id"
    }
}

/// A new App Store Connect in-app purchase key.
struct AppleAPIKeyCreated: Codable, Sendable {
    var issuerId: String
    var keyId: String
    var bundleId: String
    /// PKCS#8 PEM of the P-256 private key, as App Store Connect's `.p8` download.
    var privateKey: String

    enum CodingKeys: String, CodingKey {
        case issuerId = "issuer_id"
        case keyId = "key_id"
        case bundleId = "bundle_id"
        case privateKey = "private_key"
    }
}

/// `POST /sandbox/apple/subscriptions/{transactionId}/renewal`: what happens at the subscription's next renewal.
struct UpdateAppleRenewalRequest: Decodable, Sendable {
    /// Whether the customer keeps auto-renewal on.
    var autoRenew: Bool?
    /// Billing failed and the App Store keeps retrying (status 3 once expired); false ends retry and grace period.
    var billingRetry: Bool?
    /// Billing failed, but the customer keeps service until then (status 4 once expired).
    var gracePeriodExpiresDate: Date?

    enum CodingKeys: String, CodingKey {
        case autoRenew = "auto_renew"
        case billingRetry = "billing_retry"
        case gracePeriodExpiresDate = "grace_period_expires_date"
    }
}

/// The answer to a renewal-state change: the subscription's status now, in Apple's numbers.
struct AppleRenewalState: Codable, Sendable {
    var originalTransactionId: String
    var latestTransactionId: String
    var status: Int

    enum CodingKeys: String, CodingKey {
        case originalTransactionId = "original_transaction_id"
        case latestTransactionId = "latest_transaction_id"
        case status
    }
}

/// `GET /sandbox/apple/transactions/{id}/receipt`: the customer's app receipt, made now.
struct AppleReceiptData: Codable, Sendable {
    /// Base64 PKCS#7, as `receipt-data` of `verifyReceipt`.
    var receiptData: String

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt_data"
    }
}

/// `POST /sandbox/apple/shared-secrets`.
struct CreateSharedSecretRequest: Decodable, Sendable {
    var bundleId: String

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
    }
}

/// An app's `verifyReceipt` shared secret: made once per bundle id, the same on every later call.
struct AppleSharedSecret: Codable, Sendable {
    var bundleId: String
    /// 32 hexadecimal characters, as App Store Connect's app-specific shared secrets.
    var sharedSecret: String

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case sharedSecret = "shared_secret"
    }
}
