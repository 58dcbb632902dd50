import Foundation
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

/// The catalog sync world with Google Play: the sandbox's Play catalog (its monetization endpoints), the app's
/// service account, and Play purchases through the gateway. The package name is the world's bundle id.
extension CatalogSyncWorld {
    var packageName: String { bundleID }

    /// What Play sells for the app: `PUT /sandbox/google/products` (a product left out is deleted at the store).
    func playSells(_ products: [[String: Any]]) async throws {
        let put = try await sandbox(
            .PUT, "/sandbox/google/products", ["package_name": packageName, "products": products])
        guard put.status == 200 else { throw ServiceProcess.Failure("play products: \(put.json)") }
    }

    /// Changes one Play product at the store (`state`, `prices`, `base_plan_id`), as its developer would in Play
    /// Console.
    func playChanges(_ productID: String, _ change: [String: Any]) async throws {
        let patched = try await sandbox(
            .PATCH, "/sandbox/google/products/\(productID)",
            change.merging(["package_name": packageName]) { _, new in new })
        guard patched.status == 200 else { throw ServiceProcess.Failure("play change: \(patched.json)") }
    }

    /// The app's Google credentials: a service account the sandbox made for `accountPackage` (the app's own unless
    /// told), saved through the gateway.
    func configureGoogle(accountPackage: String? = nil) async throws {
        let account = try await sandbox(
            .POST, "/sandbox/google/service-accounts", ["package_name": accountPackage ?? packageName])
        let saved = try await gateway(
            .PUT, "/v1/admin/stores/google",
            ["package_name": packageName, "service_account": account.json, "environments": ["production", "sandbox"]])
        guard saved.status == 200 else { throw ServiceProcess.Failure("google credentials: \(saved.json)") }
    }

    /// A sandbox Play purchase of the one-time product `productID`, sent through `POST /v1/purchases`.
    func buyOnPlay(_ productID: String, user: String) async throws {
        let bought = try await sandbox(
            .POST, "/sandbox/google/purchases",
            ["package_name": packageName, "product_id": productID, "type": "product", "obfuscated_account_id": user])
        let token = try #require(bought["purchase_token"] as? String, "\(bought.json)")
        let purchased = try await gateway(
            .POST, "/v1/purchases", ["app_user_id": user, "purchase_token": token, "product_id": productID],
            secret: false)
        guard purchased.status == 200 else { throw ServiceProcess.Failure("play purchase: \(purchased.json)") }
    }

    /// A Play one-time product of the sandbox's catalog.
    static func playProduct(
        _ id: String, state: String = "ACTIVE", multiQuantity: Bool = false, prices: [(String, String, String)]
    ) -> [String: Any] {
        [
            "product_id": id, "type": "product", "title": id, "state": state, "multi_quantity": multiQuantity,
            "prices": prices.map { ["region": $0.0, "currency": $0.1, "price": $0.2] },
        ]
    }

    /// A Play subscription of the sandbox's catalog with one base plan.
    static func playSubscription(
        _ id: String, basePlan: String, period: String, prices: [(String, String, String)], offers: [String] = []
    ) -> [String: Any] {
        [
            "product_id": id, "type": "subscription", "title": id,
            "base_plans": [
                [
                    "base_plan_id": basePlan, "period": period,
                    "prices": prices.map { ["region": $0.0, "currency": $0.1, "price": $0.2] },
                    "offers": offers.map { ["offer_id": $0, "trial": "P1W"] },
                ]
            ],
        ]
    }
}
