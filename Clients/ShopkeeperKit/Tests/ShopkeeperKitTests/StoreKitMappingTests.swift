import Foundation
import Testing

@testable import ShopkeeperKit

/// What the StoreKit device store does with StoreKit's values, checked where StoreKit does not exist.
@Suite struct StoreKitMappingTests {
    @Test(
        arguments: [
            ("Production", nil, BuildKind.distribution), ("Sandbox", nil, .development), ("Xcode", nil, .development),
            (nil, "sandboxReceipt", .development), (nil, "receipt", .distribution), (nil, nil, .distribution),
        ] as [(String?, String?, BuildKind)])
    func sandboxTestFlightAndXcodeBuildsAreDevelopmentBuilds(environment: String?, receipt: String?, kind: BuildKind) {
        #expect(StoreKitMapping.buildKind(environment: environment, receiptFileName: receipt) == kind)
    }

    @Test(arguments: [
        ("Consumable", ProductType.consumable), ("Non-Consumable", .nonConsumable),
        ("Auto-Renewable Subscription", .autoRenewable), ("Non-Renewing Subscription", .nonRenewing),
    ])
    func productTypes(raw: String, type: ProductType) {
        #expect(StoreKitMapping.productType(storeKitRawValue: raw) == type)
    }

    @Test func aTransactionIsSentAsItsSignedJWSWithItsToken() {
        let token = AppAccountToken.uuid(forAppUserID: "alice")
        let transaction = StoreKitMapping.deviceTransaction(
            id: 2_000_000_412_345_000, productID: "com.example.extra", jwsRepresentation: "h.p.s",
            appAccountToken: token,
            productTypeRawValue: "Non-Consumable")
        #expect(transaction.id == "2000000412345000")
        #expect(transaction.proof == .signedTransaction("h.p.s"))
        #expect(transaction.appAccountToken == token)
        #expect(transaction.productType == .nonConsumable)
    }

    @Test func quantityIsAskedOnlyForSeveralUnitsOfAConsumable() {
        let token = UUID()
        #expect(
            StoreKitMapping.purchaseQuantity(
                DevicePurchaseRequest(
                    storeProductID: "f", productType: .consumable, appAccountToken: token, quantity: 3))
                == 3)
        #expect(
            StoreKitMapping.purchaseQuantity(
                DevicePurchaseRequest(storeProductID: "f", productType: .consumable, appAccountToken: token)) == nil)
        #expect(
            StoreKitMapping.purchaseQuantity(
                DevicePurchaseRequest(
                    storeProductID: "g", productType: .nonConsumable, appAccountToken: token, quantity: 2))
                == nil)
    }
}
