import Foundation

/// The JSON body of a POST to Apple's legacy `verifyReceipt` endpoint.
package struct VerifyReceiptRequest: Codable, Sendable, Equatable {
    /// The base64 app receipt (`receipt-data`).
    package var receiptData: String
    /// The app's shared secret, required for auto-renewable subscriptions (`password`).
    package var password: String?
    /// Keep only the latest renewal of each subscription in `latest_receipt_info` (`exclude-old-transactions`).
    package var excludeOldTransactions: Bool?

    package init(receiptData: String, password: String? = nil, excludeOldTransactions: Bool? = nil) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }
}

/// The JSON response of `verifyReceipt` (Apple's `responseBody`), with Apple's keys. Dates are strings in three
/// forms, as Apple sends them: `"2023-01-01 12:00:00 Etc/GMT"`, milliseconds (`*_ms`, a decimal string) and
/// Pacific time (`*_pst`).
package struct VerifyReceiptResponse: Codable, Sendable, Equatable {
    package var status: VerifyReceiptStatus
    /// `"Sandbox"` or `"Production"`.
    package var environment: String?
    package var receipt: Receipt?
    /// Every in-app purchase transaction, newest renewals included (`latest_receipt_info`).
    package var latestReceiptInfo: [InApp]?
    /// The latest base64 app receipt (`latest_receipt`).
    package var latestReceipt: String?
    package var pendingRenewalInfo: [PendingRenewalInfo]?
    /// Set with statuses 21100…21199: whether to try again later (`is-retryable`).
    package var isRetryable: Bool?

    package init(
        status: VerifyReceiptStatus, environment: String? = nil, receipt: Receipt? = nil,
        latestReceiptInfo: [InApp]? = nil, latestReceipt: String? = nil,
        pendingRenewalInfo: [PendingRenewalInfo]? = nil, isRetryable: Bool? = nil
    ) {
        self.status = status
        self.environment = environment
        self.receipt = receipt
        self.latestReceiptInfo = latestReceiptInfo
        self.latestReceipt = latestReceipt
        self.pendingRenewalInfo = pendingRenewalInfo
        self.isRetryable = isRetryable
    }

    enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case latestReceiptInfo = "latest_receipt_info"
        case latestReceipt = "latest_receipt"
        case pendingRenewalInfo = "pending_renewal_info"
        case isRetryable = "is-retryable"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(VerifyReceiptStatus.self, forKey: .status)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        receipt = try container.decodeIfPresent(Receipt.self, forKey: .receipt)
        latestReceiptInfo = try container.decodeIfPresent([InApp].self, forKey: .latestReceiptInfo)
        latestReceipt = try container.decodeIfPresent(String.self, forKey: .latestReceipt)
        pendingRenewalInfo = try container.decodeIfPresent([PendingRenewalInfo].self, forKey: .pendingRenewalInfo)
        // Documented as a boolean, described as "a value of 1": both forms are read.
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .isRetryable) {
            isRetryable = flag
        } else {
            isRetryable = try container.decodeIfPresent(Int.self, forKey: .isRetryable).map { $0 != 0 }
        }
    }
}

extension VerifyReceiptResponse {
    /// The decoded app receipt (`responseBody.Receipt`).
    package struct Receipt: Codable, Sendable, Equatable {
        package var receiptType: String?
        package var adamId: Int64?
        package var appItemId: Int64?
        package var bundleId: String
        package var applicationVersion: String
        package var downloadId: Int64?
        package var versionExternalIdentifier: Int64?
        package var receiptCreationDate: String?
        package var receiptCreationDateMs: String?
        package var receiptCreationDatePst: String?
        package var requestDate: String?
        package var requestDateMs: String?
        package var requestDatePst: String?
        package var originalPurchaseDate: String?
        package var originalPurchaseDateMs: String?
        package var originalPurchaseDatePst: String?
        package var originalApplicationVersion: String?
        package var expirationDate: String?
        package var expirationDateMs: String?
        package var expirationDatePst: String?
        package var preorderDate: String?
        package var preorderDateMs: String?
        package var preorderDatePst: String?
        package var inApp: [InApp]

        package init(bundleId: String, applicationVersion: String, inApp: [InApp] = []) {
            self.bundleId = bundleId
            self.applicationVersion = applicationVersion
            self.inApp = inApp
        }

        enum CodingKeys: String, CodingKey {
            case receiptType = "receipt_type"
            case adamId = "adam_id"
            case appItemId = "app_item_id"
            case bundleId = "bundle_id"
            case applicationVersion = "application_version"
            case downloadId = "download_id"
            case versionExternalIdentifier = "version_external_identifier"
            case receiptCreationDate = "receipt_creation_date"
            case receiptCreationDateMs = "receipt_creation_date_ms"
            case receiptCreationDatePst = "receipt_creation_date_pst"
            case requestDate = "request_date"
            case requestDateMs = "request_date_ms"
            case requestDatePst = "request_date_pst"
            case originalPurchaseDate = "original_purchase_date"
            case originalPurchaseDateMs = "original_purchase_date_ms"
            case originalPurchaseDatePst = "original_purchase_date_pst"
            case originalApplicationVersion = "original_application_version"
            case expirationDate = "expiration_date"
            case expirationDateMs = "expiration_date_ms"
            case expirationDatePst = "expiration_date_pst"
            case preorderDate = "preorder_date"
            case preorderDateMs = "preorder_date_ms"
            case preorderDatePst = "preorder_date_pst"
            case inApp = "in_app"
        }
    }

    /// A pending or failed renewal of an auto-renewable subscription (`responseBody.Pending_renewal_info`).
    package struct PendingRenewalInfo: Codable, Sendable, Equatable {
        /// The product the subscription renews to.
        package var autoRenewProductId: String?
        /// `"1"` when the subscription renews, `"0"` when the customer turned renewal off.
        package var autoRenewStatus: String?
        package var originalTransactionId: String
        package var productId: String
        /// Why the subscription expired: `"1"` cancelled … `"5"` other.
        package var expirationIntent: String?
        /// `"1"` while Apple is still trying to bill the customer.
        package var isInBillingRetryPeriod: String?
        package var gracePeriodExpiresDate: String?
        package var gracePeriodExpiresDateMs: String?
        package var gracePeriodExpiresDatePst: String?
        package var priceConsentStatus: String?
        package var offerCodeRefName: String?
        package var promotionalOfferId: String?

        package init(
            originalTransactionId: String, productId: String, autoRenewProductId: String? = nil,
            autoRenewStatus: Bool = true
        ) {
            self.originalTransactionId = originalTransactionId
            self.productId = productId
            self.autoRenewProductId = autoRenewProductId ?? productId
            self.autoRenewStatus = autoRenewStatus ? "1" : "0"
        }

        /// The grace period end (from `grace_period_expires_date_ms`).
        package var gracePeriodExpiresAt: Date? {
            get { gracePeriodExpiresDateMs.flatMap(VerifyReceiptDate.parse) }
            set {
                gracePeriodExpiresDate = newValue.map(ReceiptDate.gmt)
                gracePeriodExpiresDateMs = newValue.map(ReceiptDate.millisecondsString)
                gracePeriodExpiresDatePst = newValue.map(ReceiptDate.pacific)
            }
        }

        enum CodingKeys: String, CodingKey {
            case autoRenewProductId = "auto_renew_product_id"
            case autoRenewStatus = "auto_renew_status"
            case originalTransactionId = "original_transaction_id"
            case productId = "product_id"
            case expirationIntent = "expiration_intent"
            case isInBillingRetryPeriod = "is_in_billing_retry_period"
            case gracePeriodExpiresDate = "grace_period_expires_date"
            case gracePeriodExpiresDateMs = "grace_period_expires_date_ms"
            case gracePeriodExpiresDatePst = "grace_period_expires_date_pst"
            case priceConsentStatus = "price_consent_status"
            case offerCodeRefName = "offer_code_ref_name"
            case promotionalOfferId = "promotional_offer_id"
        }
    }
}

/// Reads the `*_ms` strings of `verifyReceipt`.
enum VerifyReceiptDate {
    static func parse(_ milliseconds: String) -> Date? {
        Int64(milliseconds).map(ReceiptDate.date(milliseconds:))
    }
}
