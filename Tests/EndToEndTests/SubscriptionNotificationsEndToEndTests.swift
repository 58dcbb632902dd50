import Foundation
import ShopkeeperTestSupport
import Testing

/// A subscription's life told by the sandbox store's App Store Server Notifications, through the real gateway,
/// verifier, subscriptions and entitlements processes: what the customer owns follows the store's news.
@Suite(.serialized) struct SubscriptionNotificationsEndToEndTests {
    /// Runs `body` with a world on a database of its own and a gateway the sandbox sends notifications to.
    func withWorld(_ body: @Sendable @escaping (StoreWorld, ServiceProcess) async throws -> Void) async throws {
        let products: [[String: Any]] = [
            [
                "product_id": "pro_monthly", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "group": "pro", "store_product_ids": ["app_store": "pro.monthly", "play_store": "pro_monthly"],
                "localizations": ["en": ["name": "Pro", "description": "Pro"]],
            ]
        ]
        try await NotifiedStoreWorld.run(products: products, apiKey: false) { notified in
            try await body(notified.world, notified.gateway)
        }
    }

    func customer(_ world: StoreWorld, _ user: String) async throws -> [String: Any] {
        try await world.customerInfo(user)
    }

    /// The customer's info once `condition` holds for it (applies reach entitlements after subscriptions), or
    /// after 20 seconds.
    func customer(
        _ world: StoreWorld, _ user: String, until condition: @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await ShopkeeperTestSupport.eventually({ try await customer(world, user) }, until: condition)
    }

    func subscription(_ world: StoreWorld, _ user: String) async throws -> [String: Any] {
        (try await customer(world, user)["subscriptions"] as? [[String: Any]])?.first ?? [:]
    }

    /// Waits until the customer's subscription satisfies `condition` (notifications are processed in the
    /// background).
    func eventually(
        _ world: StoreWorld, _ user: String, _ condition: @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        try await ShopkeeperTestSupport.eventually({ try await subscription(world, user) }, until: condition)
    }

    /// The event types once `condition` holds for them, or after 20 seconds.
    func eventTypes(_ world: StoreWorld, until condition: @Sendable ([String]) -> Bool) async throws -> [String] {
        try await ShopkeeperTestSupport.eventually({ try await eventTypes(world) }, until: condition)
    }

    func eventTypes(_ world: StoreWorld) async throws -> [String] {
        try await world.eventTypes()
    }

    @Test func buyRenewTwiceFailIntoGraceRecoverCancelExpire() async throws {
        try await withWorld { world, _ in
            let bought = try await world.buyAppleSubscription()
            let original = bought.originalTransactionID
            try await world.presentApple(bought.jws, for: "ana", ["device_id": "phone"])
            var state = try await eventually(world, "ana") { $0["state"] as? String == "active" }
            #expect(state["original_transaction_id"] as? String == original)

            // Two renewals, each told by DID_RENEW.
            var expires = state["expires_at"] as? String
            for _ in 0..<2 {
                let renewed = try await world.sandbox(.POST, "/sandbox/apple/subscriptions/\(original)/advance")
                #expect(renewed["result"] as? String == "renewed", "\(renewed.json)")
                let before = expires
                state = try await eventually(world, "ana") { $0["expires_at"] as? String != before }
                #expect(state["state"] as? String == "active")
                expires = state["expires_at"] as? String
            }
            // The next billing fails; the App Store gives a grace period: still in service.
            let failed = try await world.sandbox(
                .POST, "/sandbox/apple/subscriptions/\(original)/advance",
                ["outcome": "fail", "grace_period_seconds": 3600])
            #expect(failed["result"] as? String == "billing_failed")
            state = try await eventually(world, "ana") { $0["state"] as? String == "grace_period" }
            #expect(state["state"] as? String == "grace_period")
            #expect(state["active"] as? Bool == true)
            // Billing recovers: a new period.
            let recovered = try await world.sandbox(.POST, "/sandbox/apple/subscriptions/\(original)/advance")
            #expect(recovered["result"] as? String == "renewed")
            state = try await eventually(world, "ana") { $0["state"] as? String == "active" }
            #expect(state["state"] as? String == "active")
            // The customer turns auto-renew off, then the period ends.
            try await world.sandbox(
                .POST, "/sandbox/apple/subscriptions/\(original)/renewal", ["auto_renew": false])
            state = try await eventually(world, "ana") { $0["will_renew"] as? Bool == false }
            #expect(state["will_renew"] as? Bool == false)
            let ended = try await world.sandbox(.POST, "/sandbox/apple/subscriptions/\(original)/advance")
            #expect(ended["result"] as? String == "expired")
            state = try await eventually(world, "ana") { $0["state"] as? String == "expired" }
            #expect(state["state"] as? String == "expired")
            let info = try await customer(world, "ana")
            let pro = (info["entitlements"] as? [String: [String: Any]])?["pro"]
            #expect(pro?["active"] as? Bool == false, "\(info)")

            // Customer info is exact at once; events are relayed in the background.
            let types = try await eventTypes(world, until: { $0.contains("expiration") })
            #expect(types.filter { $0 == "renewal" }.count == 3, "\(types)")
            for expected in ["billing_issue", "grace_period_started", "cancellation", "expiration"] {
                #expect(types.contains(expected), "\(expected) in \(types)")
            }

            // Every notification was delivered and processed once; Apple's retries change nothing.
            let log = try await world.sandbox(.GET, "/sandbox/notifications")
            let deliveries = log["deliveries"] as? [[String: Any]] ?? []
            #expect(deliveries.allSatisfy { $0["delivered"] as? Bool == true }, "\(deliveries)")
            let renewal = try #require(deliveries.last { $0["type"] as? String == "DID_RENEW" })
            let uuid = try #require(renewal["notification_uuid"] as? String)
            let resent = try await world.sandbox(
                .POST, "/sandbox/notifications/\(uuid)/resend?times=200&concurrency=32")
            #expect((resent["statuses"] as? [Int])?.allSatisfy { $0 == 200 } == true, "\(resent.json)")
            try await Task.sleep(for: .seconds(1))
            #expect(try await eventTypes(world) == types)
        }
    }

    @Test func aRefundEndsAccessAtOnce() async throws {
        try await withWorld { world, _ in
            let bought = try await world.buyAppleSubscription()
            let id = bought.transactionID
            try await world.presentApple(bought.jws, for: "ben")
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/refund", ["reason": 1])
            let state = try await eventually(world, "ben") { $0["state"] as? String == "refunded" }
            #expect(state["state"] as? String == "refunded")
            #expect(state["active"] as? Bool == false)
            let info = try await customer(world, "ben") { $0["refund_count"] as? Int == 1 }
            #expect((info["entitlements"] as? [String: [String: Any]])?["pro"]?["active"] as? Bool == false)
            #expect(info["refund_count"] as? Int == 1, "\(info)")
        }
    }

    /// A Pub/Sub push of a Play notification, as Google sends it.
    func push(_ notification: [String: Any], id: String = UUID().uuidString) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: notification)
        return [
            "message": ["data": data.base64EncodedString(), "messageId": id, "publishTime": "2026-11-24T10:00:00Z"],
            "subscription": "projects/garden/subscriptions/play",
        ]
    }

    func post(_ gateway: ServiceProcess, _ path: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
        let response = try await gateway.post(path, json: try JSONSerialization.data(withJSONObject: body))
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }

    @Test func googlePushesAreAuthenticatedRecordedOnceAndFetchTheState() async throws {
        try await withWorld { world, gateway in
            let pushToken = "push-token-0123456789abcdefghij"
            let account = try await world.sandbox(
                .POST, "/sandbox/google/service-accounts", ["package_name": world.packageName])
            let saved = try await world.verifier(
                .PUT, "/v1/admin/stores/google",
                ["package_name": world.packageName, "service_account": account.json, "push_token": pushToken],
                kind: .secret)
            #expect(saved.status == 200, "\(saved.json)")
            #expect(saved["push_token_set"] as? Bool == true)
            let token = try await world.buyGoogleSubscription()
            try await world.presentGoogleSubscription(token, for: "gus")
            _ = try await eventually(world, "gus") { $0["state"] as? String == "active" }

            // Google refunds it; the push only says so, the state comes from the Play Developer API.
            try await world.sandbox(.POST, "/sandbox/google/purchases/\(token)/refund", [:])
            let voided = try push([
                "version": "1.0", "packageName": world.packageName,
                "eventTimeMillis": String(Int64(Date().timeIntervalSince1970 * 1000)),
                "voidedPurchaseNotification": ["purchaseToken": token, "productType": 1, "refundType": 1],
            ])
            let (anonymous, refusal) = try await post(gateway, "/v1/notifications/google", voided)
            #expect(anonymous == 401 && refusal["code"] as? String == "invalid_push_token")
            let (wrong, _) = try await post(gateway, "/v1/notifications/google?token=not-the-token-at-all-000", voided)
            #expect(wrong == 401)
            let (accepted, receipt) = try await post(gateway, "/v1/notifications/google?token=\(pushToken)", voided)
            #expect(accepted == 200, "\(receipt)")
            #expect(receipt["duplicate"] as? Bool == false)
            let (again, repeated) = try await post(gateway, "/v1/notifications/google?token=\(pushToken)", voided)
            #expect(again == 200 && repeated["duplicate"] as? Bool == true)

            let state = try await eventually(world, "gus") { $0["active"] as? Bool == false }
            #expect(state["active"] as? Bool == false, "\(state)")
            // The subscription is applied first, then the purchase's refund: wait for both.
            let info = try await customer(world, "gus") { $0["refund_count"] as? Int == 1 }
            #expect((info["entitlements"] as? [String: [String: Any]])?["pro"]?["active"] as? Bool == false)
            #expect(info["refund_count"] as? Int == 1, "\(info)")
        }
    }
}
