import Foundation

/// The payload of Apple's legacy app receipt: the app, and the in-app purchases the receipt proves.
///
/// The sandbox store writes it (``AppReceiptContainer/sign(_:with:)``) and the verifier reads it back
/// (``AppReceiptReader``). Every date is kept at millisecond precision, the precision of
/// `verifyReceipt`'s `*_ms` fields, so a receipt survives both the ASN.1 and the JSON round trip unchanged.
package struct AppReceipt: Sendable, Equatable {
    /// The environment the receipt was issued in: `"Production"`, `"ProductionSandbox"`, `"Xcode"`, …
    package var receiptType: String
    package var bundleId: String
    /// `CFBundleVersion` of the app when the receipt was created.
    package var applicationVersion: String
    /// The app version the customer originally bought.
    package var originalApplicationVersion: String
    /// When the App Store created the receipt; the signing chain is validated at this instant.
    package var creationDate: Date {
        didSet { creationDate = ReceiptDate.normalized(creationDate) }
    }
    /// When a Volume Purchase Program receipt expires; `nil` for ordinary receipts.
    package var expirationDate: Date? {
        didSet { expirationDate = expirationDate.map(ReceiptDate.normalized) }
    }
    /// When the customer originally bought the app.
    package var originalPurchaseDate: Date? {
        didSet { originalPurchaseDate = originalPurchaseDate.map(ReceiptDate.normalized) }
    }
    /// Apple's opaque value, input of the device hash check.
    package var opaqueValue: Data
    /// The SHA-1 of device identifier, opaque value and bundle id.
    package var sha1Hash: Data
    package var inAppPurchases: [InAppPurchase]

    package init(
        receiptType: String = "ProductionSandbox",
        bundleId: String,
        applicationVersion: String = "1",
        originalApplicationVersion: String = "1.0",
        creationDate: Date = Date(),
        expirationDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        opaqueValue: Data = Data(),
        sha1Hash: Data = Data(),
        inAppPurchases: [InAppPurchase] = []
    ) {
        self.receiptType = receiptType
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.creationDate = ReceiptDate.normalized(creationDate)
        self.expirationDate = expirationDate.map(ReceiptDate.normalized)
        self.originalPurchaseDate = originalPurchaseDate.map(ReceiptDate.normalized)
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.inAppPurchases = inAppPurchases
    }
}

extension AppReceipt {
    /// One in-app purchase receipt (ASN.1 attribute 17 of the app receipt).
    package struct InAppPurchase: Sendable, Equatable {
        package var quantity: Int
        package var productId: String
        package var transactionId: String
        package var originalTransactionId: String
        package var purchaseDate: Date {
            didSet { purchaseDate = ReceiptDate.normalized(purchaseDate) }
        }
        package var originalPurchaseDate: Date {
            didSet { originalPurchaseDate = ReceiptDate.normalized(originalPurchaseDate) }
        }
        /// When an auto-renewable subscription period ends; `nil` for other products.
        package var expiresDate: Date? {
            didSet { expiresDate = expiresDate.map(ReceiptDate.normalized) }
        }
        /// When Apple refunded or revoked the purchase.
        package var cancellationDate: Date? {
            didSet { cancellationDate = cancellationDate.map(ReceiptDate.normalized) }
        }
        /// The subscription-period identifier that links renewals across devices.
        package var webOrderLineItemId: Int64?
        package var isTrialPeriod: Bool
        package var isInIntroOfferPeriod: Bool
        /// The promotional offer the customer redeemed, if any.
        package var promotionalOfferIdentifier: String?

        /// A purchase; the original transaction and purchase date default to this transaction's.
        package init(
            quantity: Int = 1,
            productId: String,
            transactionId: String,
            originalTransactionId: String? = nil,
            purchaseDate: Date,
            originalPurchaseDate: Date? = nil,
            expiresDate: Date? = nil,
            cancellationDate: Date? = nil,
            webOrderLineItemId: Int64? = nil,
            isTrialPeriod: Bool = false,
            isInIntroOfferPeriod: Bool = false,
            promotionalOfferIdentifier: String? = nil
        ) {
            self.quantity = quantity
            self.productId = productId
            self.transactionId = transactionId
            self.originalTransactionId = originalTransactionId ?? transactionId
            self.purchaseDate = ReceiptDate.normalized(purchaseDate)
            self.originalPurchaseDate = ReceiptDate.normalized(originalPurchaseDate ?? purchaseDate)
            self.expiresDate = expiresDate.map(ReceiptDate.normalized)
            self.cancellationDate = cancellationDate.map(ReceiptDate.normalized)
            self.webOrderLineItemId = webOrderLineItemId
            self.isTrialPeriod = isTrialPeriod
            self.isInIntroOfferPeriod = isInIntroOfferPeriod
            self.promotionalOfferIdentifier = promotionalOfferIdentifier
        }
    }
}
