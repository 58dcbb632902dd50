import Foundation

/// How StoreKit's values become Shopkeeper's, as plain functions of StoreKit's raw values: compiled and tested on
/// every platform (StoreKit itself exists only on Apple's), so ``StoreKitDeviceStore`` keeps nothing to get wrong.
public enum StoreKitMapping {
    /// The catalog's build kind for an App Store environment (`AppStore.Environment.rawValue`: `Production`,
    /// `Sandbox` for TestFlight and sandbox testers, `Xcode`), or, before iOS 16 where no environment is known,
    /// by the app receipt's file name (`sandboxReceipt` in TestFlight and development builds).
    public static func buildKind(environment: String?, receiptFileName: String?) -> BuildKind {
        if let environment {
            return environment.caseInsensitiveCompare("Production") == .orderedSame ? .distribution : .development
        }
        return receiptFileName == "sandboxReceipt" ? .development : .distribution
    }

    /// Shopkeeper's product type for StoreKit's `Product.ProductType.rawValue`.
    public static func productType(storeKitRawValue: String) -> ProductType? {
        switch storeKitRawValue {
        case "Consumable", "consumable": .consumable
        case "Non-Consumable", "nonConsumable": .nonConsumable
        case "Auto-Renewable Subscription", "autoRenewable": .autoRenewable
        case "Non-Renewing Subscription", "nonRenewable": .nonRenewing
        default: nil
        }
    }

    /// The transaction to keep and send for a StoreKit 2 transaction: its id (`Transaction.id`), product, the
    /// JWS of its verification result (sent even when StoreKit could not verify it: Shopkeeper verifies on the
    /// server and refuses a forgery for good, which finishes it) and its `appAccountToken`.
    public static func deviceTransaction(
        id: UInt64, productID: String, jwsRepresentation: String, appAccountToken: UUID?, productTypeRawValue: String
    ) -> DeviceTransaction {
        DeviceTransaction(
            id: String(id), storeProductID: productID, proof: .signedTransaction(jwsRepresentation),
            appAccountToken: appAccountToken, productType: productType(storeKitRawValue: productTypeRawValue))
    }

    /// A unit of StoreKit's `Product.SubscriptionPeriod`.
    public enum PeriodUnit: Hashable, Sendable {
        /// Days.
        case day
        /// Weeks.
        case week
        /// Months.
        case month
        /// Years.
        case year
    }

    /// A StoreKit subscription period as ISO 8601, as the catalog writes durations (`P1M`, `P1W`, `P3D`).
    public static func isoPeriod(value: Int, unit: PeriodUnit) -> String {
        let letter =
            switch unit {
            case .day: "D"
            case .week: "W"
            case .month: "M"
            case .year: "Y"
            }
        return "P\(value)\(letter)"
    }

    /// The units to ask StoreKit for: `Product.PurchaseOption.quantity` only for consumables, and only above one.
    public static func purchaseQuantity(_ request: DevicePurchaseRequest) -> Int? {
        request.productType == .consumable && request.quantity > 1 ? request.quantity : nil
    }
}
