import Foundation
import ShopkeeperDatabase
import ShopkeeperTestSupport

/// Steps of the Play refund tests: a voided-purchase notification pushed as Pub/Sub pushes it, and the verifier's
/// notification inbox.
extension StoreWorld {
    /// Runs `body` in a world on a database of its own with `products` in the catalog and Google credentials with
    /// `pushToken`; the verifier gets `verifierEnvironment`. With `pushToVerifier`, the sandbox pushes its Play
    /// notifications through a gateway (as Pub/Sub reaches a deployment) to the verifier, authenticated by the token.
    static func withGoogle(
        products: [[String: Any]], pushToken: String, verifierEnvironment: [String: String],
        pushToVerifier: Bool = false, _ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void
    ) async throws {
        // Carried into the closures as JSON (a dictionary of `Any` is not `Sendable`).
        let catalog = try JSONSerialization.data(withJSONObject: products)
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(databaseURL: database.url, verifierEnvironment: verifierEnvironment) { world in
                try await world.importCatalog(
                    (try JSONSerialization.jsonObject(with: catalog) as? [[String: Any]]) ?? [])
                try await world.configureGoogle(extra: ["push_token": pushToken])
                guard pushToVerifier else { return try await body(world, database) }
                let gateway = try await world.startGateway(
                    databaseURL: database.url, operatorKey: "op_e2e_operator_key_0123456789")
                let target = gateway.baseURL + "/v1/notifications/google?token=\(pushToken)"
                let pushes = try await world.sandbox(.PUT, "/sandbox/notifications", ["google_url": target])
                do {
                    guard pushes.status == 200 else { throw ServiceProcess.Failure("push target: \(pushes.json)") }
                    try await body(world, database)
                } catch {
                    _ = try? await gateway.terminate()
                    throw ServiceProcess.Failure("\(error)\ngateway log: \(gateway.logTail())")
                }
                _ = try? await gateway.terminate()
            }
        }
    }

    /// Pushes the voided-purchase notification Google would send for `order` (`productType` 1 subscription, 2 one-time
    /// product; `refundType` 1 full, 2 quantity-based partial), as Pub/Sub does with the app's `?token=`; answers
    /// whether the verifier took it as new.
    @discardableResult
    func pushGoogleVoided(token: String, order: String, productType: Int, refundType: Int = 1, pushToken: String)
        async throws -> Bool
    {
        let notification: [String: Any] = [
            "version": "1.0", "packageName": packageName,
            "eventTimeMillis": String(Int64(Date().timeIntervalSince1970 * 1000)),
            "voidedPurchaseNotification": [
                "purchaseToken": token, "orderId": order, "productType": productType, "refundType": refundType,
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: notification)
        let envelope: [String: Any] = [
            "message": [
                "data": data.base64EncodedString(), "messageId": String(Int64.random(in: 1...Int64.max)),
                "publishTime": "2026-11-24T10:00:00Z",
            ],
            "subscription": "projects/garden/subscriptions/play",
        ]
        let pushed = try await verifier(.POST, "/v1/notifications/google?token=\(pushToken)", envelope)
        guard pushed.status == 200 else { throw ServiceProcess.Failure("push answered \(pushed.json)") }
        return pushed["duplicate"] as? Bool == false
    }

    /// Waits until every notification of this app in the verifier's inbox is processed; answers how many are not.
    @discardableResult
    func waitForProcessedNotifications(_ database: DatabaseSettings) async throws -> Int {
        try await ShopkeeperTestSupport.eventually(
            {
                try await TestDatabase.withClient(database) { client in
                    var count = 0
                    for try await pending in try await client.query(
                        """
                        SELECT count(*)::int FROM verifier.notifications
                        WHERE app_id = \(appID) AND state <> 'processed'
                        """
                    ).decode(Int.self) { count = pending }
                    return count
                }
            }, until: { $0 == 0 })
    }
}
