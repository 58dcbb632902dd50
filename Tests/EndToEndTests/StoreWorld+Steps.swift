import Foundation
import ShopkeeperTestSupport
import Testing

/// Steps several end-to-end tests take the same way: buying a subscription in the sandbox and presenting it,
/// starting a gateway in front of the world.
extension StoreWorld {
    /// An App Store transaction bought in the sandbox store.
    struct AppleTransaction {
        var transactionID: String
        var originalTransactionID: String
        /// The signed transaction, as StoreKit gives it to the app.
        var jws: String
    }

    /// Buys `productID` of `type` (Apple's words: `Consumable`, `Auto-Renewable Subscription`, ...) in the sandbox's
    /// App Store, with `extra` fields in the request; fails unless the answer has the transaction's ids and signed
    /// transaction.
    func buyApple(_ productID: String, type: String, _ extra: [String: Any] = [:]) async throws -> AppleTransaction {
        var body: [String: Any] = ["bundle_id": bundleID, "product_id": productID, "type": type]
        body.merge(extra) { _, new in new }
        let bought = try await sandbox(.POST, "/sandbox/apple/transactions", body)
        return AppleTransaction(
            transactionID: try #require(bought["transaction_id"] as? String, "\(bought.json)"),
            originalTransactionID: try #require(bought["original_transaction_id"] as? String, "\(bought.json)"),
            jws: try #require(bought["signed_transaction"] as? String, "\(bought.json)"))
    }

    /// Buys `productID`, an auto-renewable subscription of one month, in the sandbox's App Store
    /// (``buyApple(_:type:_:)``).
    func buyAppleSubscription(_ productID: String = "pro.monthly", _ extra: [String: Any] = [:]) async throws
        -> AppleTransaction
    {
        var fields: [String: Any] = ["period": "P1M"]
        fields.merge(extra) { _, new in new }
        return try await buyApple(productID, type: "Auto-Renewable Subscription", fields)
    }

    /// Presents `jws` to the verifier for `appUserID` (`POST /v1/purchases`, with `extra` fields) and expects it
    /// accepted.
    @discardableResult
    func presentApple(_ jws: String, for appUserID: String, _ extra: [String: Any] = [:]) async throws -> Answer {
        var body: [String: Any] = ["app_user_id": appUserID, "signed_transaction": jws]
        body.merge(extra) { _, new in new }
        let purchase = try await verifier(.POST, "/v1/purchases", body)
        #expect(purchase.status == 200, "\(purchase.json)")
        return purchase
    }

    /// Buys `productID` (a subscription of one month) in the sandbox's Google Play; returns its purchase token.
    func buyGoogleSubscription(_ productID: String = "pro_monthly") async throws -> String {
        let bought = try await sandbox(
            .POST, "/sandbox/google/purchases",
            ["package_name": packageName, "product_id": productID, "type": "subscription", "period": "P1M"])
        return try #require(bought["purchase_token"] as? String, "\(bought.json)")
    }

    /// Presents the Play subscription `token` to the verifier for `appUserID` (`POST /v1/purchases`, with `extra`
    /// fields) and expects it accepted.
    @discardableResult
    func presentGoogleSubscription(
        _ token: String, for appUserID: String, productID: String = "pro_monthly", _ extra: [String: Any] = [:]
    ) async throws -> Answer {
        var body: [String: Any] = [
            "app_user_id": appUserID, "purchase_token": token, "product_id": productID, "purchase_kind": "subscription",
        ]
        body.merge(extra) { _, new in new }
        let verified = try await verifier(.POST, "/v1/purchases", body)
        #expect(verified.status == 200, "\(verified.json)")
        return verified
    }

    /// A gateway process in front of this world's catalog, verifier and entitlements service, on `databaseURL`;
    /// ready when it returns.
    func startGateway(databaseURL: String, operatorKey: String) async throws -> ServiceProcess {
        let gateway = try ServiceProcess(
            "shopkeeper-gateway",
            environment: [
                "DATABASE_URL": databaseURL, "SHOPKEEPER_INTERNAL_SECRET": TestEnvironment.internalSecret,
                "SHOPKEEPER_OPERATOR_KEY": operatorKey, "SHOPKEEPER_CATALOG_URL": catalog.baseURL,
                "SHOPKEEPER_VERIFIER_URL": verifier.baseURL, "SHOPKEEPER_ENTITLEMENTS_URL": entitlements.baseURL,
            ])
        try await gateway.waitUntilReady()
        return gateway
    }
}
