import Foundation

extension VerifyReceiptResponse {
    /// One in-app purchase transaction, as in `receipt.in_app` and `latest_receipt_info`. Every value is a
    /// string, as Apple sends it: `quantity` `"1"`, booleans `"true"`/`"false"`.
    package struct InApp: Codable, Sendable, Equatable {
        package var quantity: String
        package var productId: String
        package var transactionId: String
        package var originalTransactionId: String
        package var purchaseDate: String
        package var purchaseDateMs: String
        package var purchaseDatePst: String
        package var originalPurchaseDate: String
        package var originalPurchaseDateMs: String
        package var originalPurchaseDatePst: String
        package var expiresDate: String?
        package var expiresDateMs: String?
        package var expiresDatePst: String?
        package var cancellationDate: String?
        package var cancellationDateMs: String?
        package var cancellationDatePst: String?
        /// `"1"` refunded for an issue in the app, `"0"` for another reason.
        package var cancellationReason: String?
        package var webOrderLineItemId: String?
        package var isTrialPeriod: String?
        package var isInIntroOfferPeriod: String?
        /// `"PURCHASED"` or `"FAMILY_SHARED"`.
        package var inAppOwnershipType: String?
        package var promotionalOfferId: String?
        package var offerCodeRefName: String?
        package var subscriptionGroupIdentifier: String?
        package var isUpgraded: String?

        enum CodingKeys: String, CodingKey {
            case quantity
            case productId = "product_id"
            case transactionId = "transaction_id"
            case originalTransactionId = "original_transaction_id"
            case purchaseDate = "purchase_date"
            case purchaseDateMs = "purchase_date_ms"
            case purchaseDatePst = "purchase_date_pst"
            case originalPurchaseDate = "original_purchase_date"
            case originalPurchaseDateMs = "original_purchase_date_ms"
            case originalPurchaseDatePst = "original_purchase_date_pst"
            case expiresDate = "expires_date"
            case expiresDateMs = "expires_date_ms"
            case expiresDatePst = "expires_date_pst"
            case cancellationDate = "cancellation_date"
            case cancellationDateMs = "cancellation_date_ms"
            case cancellationDatePst = "cancellation_date_pst"
            case cancellationReason = "cancellation_reason"
            case webOrderLineItemId = "web_order_line_item_id"
            case isTrialPeriod = "is_trial_period"
            case isInIntroOfferPeriod = "is_in_intro_offer_period"
            case inAppOwnershipType = "in_app_ownership_type"
            case promotionalOfferId = "promotional_offer_id"
            case offerCodeRefName = "offer_code_ref_name"
            case subscriptionGroupIdentifier = "subscription_group_identifier"
            case isUpgraded = "is_upgraded"
        }

        /// The JSON form of a receipt's in-app purchase, as the sandbox store answers `verifyReceipt` with.
        package init(_ purchase: AppReceipt.InAppPurchase, ownershipType: String = "PURCHASED") {
            quantity = String(purchase.quantity)
            productId = purchase.productId
            transactionId = purchase.transactionId
            originalTransactionId = purchase.originalTransactionId
            purchaseDate = ReceiptDate.gmt(purchase.purchaseDate)
            purchaseDateMs = ReceiptDate.millisecondsString(purchase.purchaseDate)
            purchaseDatePst = ReceiptDate.pacific(purchase.purchaseDate)
            originalPurchaseDate = ReceiptDate.gmt(purchase.originalPurchaseDate)
            originalPurchaseDateMs = ReceiptDate.millisecondsString(purchase.originalPurchaseDate)
            originalPurchaseDatePst = ReceiptDate.pacific(purchase.originalPurchaseDate)
            expiresDate = purchase.expiresDate.map(ReceiptDate.gmt)
            expiresDateMs = purchase.expiresDate.map(ReceiptDate.millisecondsString)
            expiresDatePst = purchase.expiresDate.map(ReceiptDate.pacific)
            cancellationDate = purchase.cancellationDate.map(ReceiptDate.gmt)
            cancellationDateMs = purchase.cancellationDate.map(ReceiptDate.millisecondsString)
            cancellationDatePst = purchase.cancellationDate.map(ReceiptDate.pacific)
            webOrderLineItemId = purchase.webOrderLineItemId.map { String($0) }
            isTrialPeriod = String(purchase.isTrialPeriod)
            isInIntroOfferPeriod = String(purchase.isInIntroOfferPeriod)
            inAppOwnershipType = ownershipType
            promotionalOfferId = purchase.promotionalOfferIdentifier
        }
    }

    /// A `verifyReceipt` field that cannot be read back into an ``AppReceipt``.
    package struct FieldError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Apple's JSON key.
        package var field: String
        package var value: String?

        package init(field: String, value: String?) {
            self.field = field
            self.value = value
        }

        package var description: String { "verifyReceipt field \(field) has an unreadable value \(value ?? "null")" }
    }
}

extension AppReceipt.InAppPurchase {
    /// Reads an in-app purchase back from `verifyReceipt` JSON, by its `*_ms` dates.
    package init(_ inApp: VerifyReceiptResponse.InApp) throws(VerifyReceiptResponse.FieldError) {
        func date(_ text: String?, _ field: String) throws(VerifyReceiptResponse.FieldError) -> Date? {
            guard let text, !text.isEmpty else { return nil }
            guard let date = VerifyReceiptDate.parse(text) else { throw .init(field: field, value: text) }
            return date
        }
        func flag(_ text: String?, _ field: String) throws(VerifyReceiptResponse.FieldError) -> Bool {
            switch text {
            case nil, "false", "0": return false
            case "true", "1": return true
            default: throw .init(field: field, value: text)
            }
        }
        guard let quantity = Int(inApp.quantity) else { throw .init(field: "quantity", value: inApp.quantity) }
        guard let purchaseDate = try date(inApp.purchaseDateMs, "purchase_date_ms") else {
            throw .init(field: "purchase_date_ms", value: inApp.purchaseDateMs)
        }
        let webOrderLineItemId = try inApp.webOrderLineItemId.map { (text) throws(VerifyReceiptResponse.FieldError) in
            guard let value = Int64(text) else { throw .init(field: "web_order_line_item_id", value: text) }
            return value
        }
        self.init(
            quantity: quantity,
            productId: inApp.productId,
            transactionId: inApp.transactionId,
            originalTransactionId: inApp.originalTransactionId,
            purchaseDate: purchaseDate,
            originalPurchaseDate: try date(inApp.originalPurchaseDateMs, "original_purchase_date_ms"),
            expiresDate: try date(inApp.expiresDateMs, "expires_date_ms"),
            cancellationDate: try date(inApp.cancellationDateMs, "cancellation_date_ms"),
            webOrderLineItemId: webOrderLineItemId,
            isTrialPeriod: try flag(inApp.isTrialPeriod, "is_trial_period"),
            isInIntroOfferPeriod: try flag(inApp.isInIntroOfferPeriod, "is_in_intro_offer_period"),
            promotionalOfferIdentifier: inApp.promotionalOfferId
        )
    }
}

extension VerifyReceiptResponse.Receipt {
    /// The JSON form of an app receipt, as the sandbox store answers `verifyReceipt` with.
    package init(_ receipt: AppReceipt, requestDate: Date = Date()) {
        self.init(
            bundleId: receipt.bundleId, applicationVersion: receipt.applicationVersion,
            inApp: receipt.inAppPurchases.map { VerifyReceiptResponse.InApp($0) }
        )
        receiptType = receipt.receiptType
        adamId = 0
        appItemId = 0
        downloadId = 0
        versionExternalIdentifier = 0
        originalApplicationVersion = receipt.originalApplicationVersion
        receiptCreationDate = ReceiptDate.gmt(receipt.creationDate)
        receiptCreationDateMs = ReceiptDate.millisecondsString(receipt.creationDate)
        receiptCreationDatePst = ReceiptDate.pacific(receipt.creationDate)
        self.requestDate = ReceiptDate.gmt(requestDate)
        requestDateMs = ReceiptDate.millisecondsString(requestDate)
        requestDatePst = ReceiptDate.pacific(requestDate)
        originalPurchaseDate = receipt.originalPurchaseDate.map(ReceiptDate.gmt)
        originalPurchaseDateMs = receipt.originalPurchaseDate.map(ReceiptDate.millisecondsString)
        originalPurchaseDatePst = receipt.originalPurchaseDate.map(ReceiptDate.pacific)
        expirationDate = receipt.expirationDate.map(ReceiptDate.gmt)
        expirationDateMs = receipt.expirationDate.map(ReceiptDate.millisecondsString)
        expirationDatePst = receipt.expirationDate.map(ReceiptDate.pacific)
    }
}
