import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// App Store notifications that never reach Shopkeeper (the sandbox store holds its deliveries) are found by the
/// verifier's recovery job in Apple's notification history (Get Notification History, through the sandbox's App
/// Store Server API) and processed like delivered ones: each once, across a restart of the verifier, and still once
/// when the held deliveries finally arrive.
@Suite(.serialized) struct NotificationRecoveryEndToEndTests {
    typealias Holdings = RefundReversalEndToEndTests.Holdings

    /// The recovery job looks every 200 ms.
    static let environment = ["SHOPKEEPER_NOTIFICATION_RECOVERY_INTERVAL_SECONDS": "0.2"]

    /// The app's recorded App Store notifications: id -> how many rows (always one) and their states.
    func recorded(_ notified: NotifiedStoreWorld) async throws -> [String: String] {
        try await TestDatabase.withClient(notified.database) { client in
            let rows = try await client.query(
                """
                SELECT notification_id, state FROM verifier.notifications
                WHERE app_id = \(notified.world.appID) AND store = 'app_store'
                """)
            var found: [String: String] = [:]
            for try await (id, state) in rows.decode((String, String).self) { found[id] = state }
            return found
        }
    }

    /// The job's last seen notification time for the app's sandbox history, and how many it recovered.
    func cursor(_ notified: NotifiedStoreWorld) async throws -> (checkedUntil: Date?, recovered: Int) {
        try await TestDatabase.withClient(notified.database) { client in
            let rows = try await client.query(
                """
                SELECT checked_until, recovered FROM verifier.notification_recovery
                WHERE app_id = \(notified.world.appID) AND environment = 'sandbox'
                """)
            for try await (checked, recovered) in rows.decode((Date?, Int).self) { return (checked, recovered) }
            return (nil, 0)
        }
    }

    /// The ids of the sandbox's App Store notifications about this world's app, and whether each was delivered.
    func sent(_ world: StoreWorld) async throws -> [String: Bool] {
        let log = try await world.sandbox(.GET, "/sandbox/notifications?store=apple")
        var found: [String: Bool] = [:]
        for delivery in log["deliveries"] as? [[String: Any]] ?? [] {
            guard let id = delivery["id"] as? String, let body = delivery["body"] as? String else { continue }
            if body.contains("\"signedPayload\"") { found[id] = delivery["delivered"] as? Bool ?? false }
        }
        return found
    }

    @Test func notificationsThatNeverArrivedAreRecoveredAndAppliedOnce() async throws {
        try await NotifiedStoreWorld.run(
            products: RefundReversalEndToEndTests.products, apiKey: true, verifierEnvironment: Self.environment
        ) { notified in
            let world = notified.world
            #expect(try await world.sandbox(.PUT, "/sandbox/notifications", ["hold": true])["hold"] as? Bool == true)
            let bought = try await world.buyApple("garden.extra", type: "Non-Consumable")
            let id = bought.transactionID
            try await world.presentApple(bought.jws, for: "ivy")
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/refund", ["reason": 1])
            let sent = try await sent(world)
            #expect(sent.count == 2 && sent.values.allSatisfy { !$0 }, "\(sent)")

            // Only the recovery job can tell Shopkeeper of the refund.
            let refunded = Holdings(gems: nil, garden: false, refunds: 1)
            let seen = try await ShopkeeperTestSupport.eventually({ Holdings(try await world.customerInfo("ivy")) }) {
                $0 == refunded
            }
            #expect(seen == refunded)
            let processed = try await ShopkeeperTestSupport.eventually({ try await recorded(notified) }) {
                $0.count == 2 && $0.values.allSatisfy { $0 == "processed" }
            }
            #expect(Set(processed.keys) == Set(sent.keys), "\(processed)")
            let first = try await ShopkeeperTestSupport.eventually({ try await cursor(notified) }) { $0.recovered == 2 }
            #expect(first.recovered == 2)
            let status = try await world.verifier(
                .GET, "/v1/admin/stores/apple/notification-recovery", kind: .secret)
            let environments = status["environments"] as? [[String: Any]] ?? []
            let sandbox = environments.first { $0["environment"] as? String == "sandbox" }
            #expect(sandbox?["recovered"] as? Int == 2, "\(status.json)")
            #expect(sandbox?["checked_until"] as? String != nil, "\(status.json)")

            // A restarted verifier reads the history again from its last seen time: nothing is applied twice.
            _ = try await world.verifier.terminate()
            let verifier = try world.verifier.restarted()
            do {
                try await verifier.waitUntilReady()
                let checked = try #require(first.checkedUntil)
                let later = try await ShopkeeperTestSupport.eventually({ try await cursor(notified) }) {
                    ($0.checkedUntil ?? .distantPast) > checked
                }
                #expect((later.checkedUntil ?? .distantPast) > checked)
                #expect(later.recovered == 2)

                // The held deliveries arrive at last: duplicates, answered and not applied again.
                try await world.sandbox(.PUT, "/sandbox/notifications", ["hold": false])
                let delivered = try await ShopkeeperTestSupport.eventually({ try await self.sent(world) }) {
                    $0.count == 2 && $0.values.allSatisfy { $0 }
                }
                #expect(delivered.values.allSatisfy { $0 }, "\(delivered)")
                #expect(try await recorded(notified).count == 2)
                #expect(Holdings(try await world.call(world.entitlements, .GET, "/v1/customers/ivy").json) == refunded)
                let events = try await world.eventTypes()
                #expect(events.filter { $0 == "refund" }.count == 1, "\(events)")

                // Support reads a range again on request: all of it is known already.
                let start = Date().addingTimeInterval(-3600).formatted(.iso8601)
                let reread = try await world.call(
                    verifier, .POST, "/v1/admin/stores/apple/notification-recovery",
                    ["start_date": start, "environment": "sandbox"], kind: .secret)
                #expect(reread.status == 200, "\(reread.json)")
                let outcome = (reread["environments"] as? [[String: Any]])?.first ?? [:]
                #expect(outcome["notifications"] as? Int == 2, "\(reread.json)")
                #expect(outcome["recorded"] as? Int == 0, "\(reread.json)")
                #expect(outcome["already_recorded"] as? Int == 2, "\(reread.json)")
                #expect(outcome["complete"] as? Bool == true, "\(reread.json)")
            } catch {
                _ = try? await verifier.terminate()
                throw error
            }
            _ = try? await verifier.terminate()
        }
    }

    @Test func badRecoveryRequestsAreRefusedClearly() async throws {
        try await StoreWorld.run(verifierEnvironment: Self.environment) { world in
            try await world.configureApple(apiKey: true, environments: ["sandbox"])
            let path = "/v1/admin/stores/apple/notification-recovery"
            let now = Date()
            let cases: [([String: Any], Int, String)] = [
                (["start_date": now.addingTimeInterval(60).formatted(.iso8601)], 422, "validation_failed"),
                (["start_date": "yesterday"], 422, "validation_failed"),
                (
                    ["start_date": now.addingTimeInterval(-3600).formatted(.iso8601), "environment": "production"],
                    422, "validation_failed"
                ),
                // Apple keeps 30 days of sandbox history.
                (
                    ["start_date": now.addingTimeInterval(-40 * 86_400).formatted(.iso8601)], 422,
                    "notification_history_refused"
                ),
            ]
            for (body, status, code) in cases {
                let answer = try await world.verifier(.POST, path, body, kind: .secret)
                #expect(answer.status == status, "\(body): \(answer.json)")
                #expect(answer.code == code, "\(body): \(answer.json)")
            }
            #expect(try await world.verifier(.GET, path).status == 403)
            let google = try await world.verifier(
                .GET, "/v1/admin/stores/google/notification-recovery", kind: .secret)
            #expect(google.status == 404)
            #expect(google.code == "store_not_supported")
            // The job reads the app's history too: the cursor appears for the sandbox environment only.
            let status = try await ShopkeeperTestSupport.eventually({
                try await world.verifier(.GET, path, kind: .secret)
            }) { (($0["environments"] as? [[String: Any]])?.first?["checked_until"] as? String) != nil }
            let environments = (status["environments"] as? [[String: Any]] ?? []).compactMap {
                $0["environment"] as? String
            }
            #expect(environments == ["sandbox"], "\(status.json)")
        }
    }
}
