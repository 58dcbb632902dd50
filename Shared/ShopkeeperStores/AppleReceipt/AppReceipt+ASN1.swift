import Foundation
import SwiftASN1

/// Apple's attribute numbers in the receipt payload.
enum AppReceiptAttribute {
    static let receiptType: Int64 = 0
    static let bundleId: Int64 = 2
    static let applicationVersion: Int64 = 3
    static let opaqueValue: Int64 = 4
    static let sha1Hash: Int64 = 5
    static let creationDate: Int64 = 12
    static let inAppPurchase: Int64 = 17
    static let originalPurchaseDate: Int64 = 18
    static let originalApplicationVersion: Int64 = 19
    static let expirationDate: Int64 = 21

    static let quantity: Int64 = 1701
    static let productId: Int64 = 1702
    static let transactionId: Int64 = 1703
    static let purchaseDate: Int64 = 1704
    static let originalTransactionId: Int64 = 1705
    static let inAppOriginalPurchaseDate: Int64 = 1706
    static let expiresDate: Int64 = 1708
    static let webOrderLineItemId: Int64 = 1711
    static let cancellationDate: Int64 = 1712
    static let isTrialPeriod: Int64 = 1713
    static let isInIntroOfferPeriod: Int64 = 1719
    static let promotionalOfferIdentifier: Int64 = 1721
}

extension AppReceipt {
    /// The DER of the receipt payload: a `SET OF ReceiptAttribute` with Apple's attribute numbers.
    ///
    /// Strings are UTF8String and dates IA5String RFC 3339 (`2023-01-01T12:00:00Z`, with milliseconds only when
    /// the date has some). Absent receipt-level optionals are left out; like Apple, an in-app purchase always
    /// carries its expires and cancellation dates, empty when absent.
    package func derPayload() throws -> [UInt8] {
        typealias A = AppReceiptAttribute
        var attributes = [
            ReceiptAttribute(type: A.receiptType, value: try ReceiptAttribute.utf8(receiptType)),
            ReceiptAttribute(type: A.bundleId, value: try ReceiptAttribute.utf8(bundleId)),
            ReceiptAttribute(type: A.applicationVersion, value: try ReceiptAttribute.utf8(applicationVersion)),
            ReceiptAttribute(type: A.opaqueValue, value: Array(opaqueValue)),
            ReceiptAttribute(type: A.sha1Hash, value: Array(sha1Hash)),
            ReceiptAttribute(type: A.creationDate, value: try ReceiptAttribute.date(creationDate)),
            ReceiptAttribute(
                type: A.originalApplicationVersion, value: try ReceiptAttribute.utf8(originalApplicationVersion)),
        ]
        if let originalPurchaseDate {
            attributes.append(
                ReceiptAttribute(type: A.originalPurchaseDate, value: try ReceiptAttribute.date(originalPurchaseDate)))
        }
        if let expirationDate {
            attributes.append(
                ReceiptAttribute(type: A.expirationDate, value: try ReceiptAttribute.date(expirationDate)))
        }
        for purchase in inAppPurchases {
            attributes.append(ReceiptAttribute(type: A.inAppPurchase, value: try purchase.derAttributeSet()))
        }
        return try ReceiptAttribute.serializeSet(attributes)
    }

    /// Decodes a receipt payload (BER or DER). Unknown attributes are ignored; a known attribute of the wrong
    /// type, a repeated one, or a missing required one is ``AppReceiptError/malformed(_:)``.
    package init(derPayload bytes: [UInt8]) throws(AppReceiptError) {
        typealias A = AppReceiptAttribute
        let fields = try KnownAttributes(
            ReceiptAttribute.parseSet(bytes),
            known: [
                A.receiptType, A.bundleId, A.applicationVersion, A.opaqueValue, A.sha1Hash, A.creationDate,
                A.originalPurchaseDate, A.originalApplicationVersion, A.expirationDate,
            ],
            repeatable: A.inAppPurchase
        )
        var purchases: [InAppPurchase] = []
        for attribute in fields.repeated {
            purchases.append(try InAppPurchase(derAttributeSet: attribute.value))
        }
        self.init(
            receiptType: try fields.required(A.receiptType).string(),
            bundleId: try fields.required(A.bundleId).string(),
            applicationVersion: try fields.required(A.applicationVersion).string(),
            originalApplicationVersion: try fields.required(A.originalApplicationVersion).string(),
            creationDate: try fields.required(A.creationDate).requiredDate(),
            expirationDate: try fields.optional(A.expirationDate)?.date(),
            originalPurchaseDate: try fields.optional(A.originalPurchaseDate)?.date(),
            opaqueValue: Data(try fields.required(A.opaqueValue).value),
            sha1Hash: Data(try fields.required(A.sha1Hash).value),
            inAppPurchases: purchases
        )
    }
}

extension AppReceipt.InAppPurchase {
    /// The DER `SET OF ReceiptAttribute` of one in-app purchase, the value of attribute 17.
    func derAttributeSet() throws -> [UInt8] {
        typealias A = AppReceiptAttribute
        var attributes = [
            ReceiptAttribute(type: A.quantity, value: try ReceiptAttribute.integer(Int64(quantity))),
            ReceiptAttribute(type: A.productId, value: try ReceiptAttribute.utf8(productId)),
            ReceiptAttribute(type: A.transactionId, value: try ReceiptAttribute.utf8(transactionId)),
            ReceiptAttribute(type: A.purchaseDate, value: try ReceiptAttribute.date(purchaseDate)),
            ReceiptAttribute(type: A.originalTransactionId, value: try ReceiptAttribute.utf8(originalTransactionId)),
            ReceiptAttribute(type: A.inAppOriginalPurchaseDate, value: try ReceiptAttribute.date(originalPurchaseDate)),
            ReceiptAttribute(type: A.expiresDate, value: try ReceiptAttribute.date(expiresDate)),
            ReceiptAttribute(type: A.cancellationDate, value: try ReceiptAttribute.date(cancellationDate)),
            ReceiptAttribute(type: A.isTrialPeriod, value: try ReceiptAttribute.integer(isTrialPeriod ? 1 : 0)),
            ReceiptAttribute(
                type: A.isInIntroOfferPeriod, value: try ReceiptAttribute.integer(isInIntroOfferPeriod ? 1 : 0)),
        ]
        if let webOrderLineItemId {
            attributes.append(
                ReceiptAttribute(type: A.webOrderLineItemId, value: try ReceiptAttribute.integer(webOrderLineItemId)))
        }
        if let promotionalOfferIdentifier {
            attributes.append(
                ReceiptAttribute(
                    type: A.promotionalOfferIdentifier, value: try ReceiptAttribute.utf8(promotionalOfferIdentifier)))
        }
        return try ReceiptAttribute.serializeSet(attributes)
    }

    /// Decodes the attribute set of one in-app purchase.
    init(derAttributeSet bytes: [UInt8]) throws(AppReceiptError) {
        typealias A = AppReceiptAttribute
        let fields = try KnownAttributes(
            ReceiptAttribute.parseSet(bytes),
            known: [
                A.quantity, A.productId, A.transactionId, A.purchaseDate, A.originalTransactionId,
                A.inAppOriginalPurchaseDate, A.expiresDate, A.webOrderLineItemId, A.cancellationDate,
                A.isTrialPeriod, A.isInIntroOfferPeriod, A.promotionalOfferIdentifier,
            ],
            repeatable: nil
        )
        let quantity = try fields.required(A.quantity).integer()
        guard let quantity = Int(exactly: quantity) else { throw .malformed("quantity out of range") }
        self.init(
            quantity: quantity,
            productId: try fields.required(A.productId).string(),
            transactionId: try fields.required(A.transactionId).string(),
            originalTransactionId: try fields.required(A.originalTransactionId).string(),
            purchaseDate: try fields.required(A.purchaseDate).requiredDate(),
            originalPurchaseDate: try fields.required(A.inAppOriginalPurchaseDate).requiredDate(),
            expiresDate: try fields.optional(A.expiresDate)?.date(),
            cancellationDate: try fields.optional(A.cancellationDate)?.date(),
            webOrderLineItemId: try fields.optional(A.webOrderLineItemId)?.integer(),
            isTrialPeriod: (try fields.optional(A.isTrialPeriod)?.integer() ?? 0) != 0,
            isInIntroOfferPeriod: (try fields.optional(A.isInIntroOfferPeriod)?.integer() ?? 0) != 0,
            promotionalOfferIdentifier: try fields.optional(A.promotionalOfferIdentifier)?.string()
        )
    }
}

/// The known attributes of one attribute set, by type; unknown types are dropped.
private struct KnownAttributes {
    private var byType: [Int64: ReceiptAttribute] = [:]
    /// The attributes of the one type that may repeat, in order.
    private(set) var repeated: [ReceiptAttribute] = []

    init(_ attributes: [ReceiptAttribute], known: Set<Int64>, repeatable: Int64?) throws(AppReceiptError) {
        for attribute in attributes {
            if attribute.type == repeatable {
                repeated.append(attribute)
            } else if known.contains(attribute.type) {
                guard byType.updateValue(attribute, forKey: attribute.type) == nil else {
                    throw .malformed("attribute \(attribute.type) appears more than once")
                }
            }
        }
    }

    func required(_ type: Int64) throws(AppReceiptError) -> ReceiptAttribute {
        guard let attribute = byType[type] else { throw .malformed("required attribute \(type) is missing") }
        return attribute
    }

    func optional(_ type: Int64) -> ReceiptAttribute? {
        byType[type]
    }
}
