import Foundation
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Refunds reach Shopkeeper without depending on a notification surviving: a refund made while the receiver is down
/// is still in the sandbox store's notification history after the store is killed and restarted (as Apple keeps 180
/// days of it), and the verifier's recovery job applies it once; a refund of a purchase bought without an
/// `appAccountToken`, of which no notification is sent at all, is found by the same job through Get Refund History.
@Suite(.serialized) struct RefundCrashRecoveryEndToEndTests {
    typealias Holdings = RefundReversalEndToEndTests.Holdings

    /// The recovery job runs every second.
    static let environment = ["SHOPKEEPER_NOTIFICATION_RECOVERY_INTERVAL_SECONDS": "1"]

    /// The sandbox's App Store deliveries: id -> (type, attempts, delivered).
    func deliveries(_ sandbox: ServiceProcess) async throws -> [String: (String, Int, Bool)] {
        let (_, data) = try await sandbox.get("/sandbox/notifications?store=apple")
        let log = (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        var found: [String: (String, Int, Bool)] = [:]
        for delivery in log["deliveries"] as? [[String: Any]] ?? [] {
            guard let id = delivery["id"] as? String else { continue }
            found[id] = (
                delivery["type"] as? String ?? "", delivery["attempts"] as? Int ?? 0,
                delivery["delivered"] as? Bool ?? false
            )
        }
        return found
    }

    /// Buys `product` at the sandbox (with `token` as the app account token, if any) and presents it for `user`;
    /// returns the transaction id.
    func buy(_ world: StoreWorld, _ product: String, type: String, token: String?, for user: String) async throws
        -> String
    {
        let bought = try await world.buyApple(product, type: type, token.map { ["app_account_token": $0] } ?? [:])
        try await world.presentApple(bought.jws, for: user, ["device_id": "phone"])
        return bought.transactionID
    }

    @Test func aRefundMadeWhileTheReceiverIsDownSurvivesTheStoresCrashAndIsAppliedOnce() async throws {
        try await NotifiedStoreWorld.run(
            products: RefundReversalEndToEndTests.products, apiKey: true, verifierEnvironment: Self.environment
        ) { notified in
            let world = notified.world
            let token = AppAccountToken.uuid(forAppUserID: "kim").uuidString.lowercased()
            let garden = try await buy(world, "garden.extra", type: "Non-Consumable", token: token, for: "kim")
            let owned = Holdings(gems: nil, garden: true, refunds: 0)
            #expect(try await eventually({ Holdings(try await world.customerInfo("kim")) }) { $0 == owned } == owned)

            // The receiver (the gateway, and the verifier behind it) goes down; the refund's notification is attempted
            // and fails, and nothing can read the store's history before the store crashes.
            _ = try await notified.gateway.terminate()
            _ = try await world.verifier.terminate()
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(garden)/refund", ["reason": 1])
            let attempted = try await eventually({ try await deliveries(world.sandbox) }) {
                $0.values.contains { $0.0 == "REFUND" && $0.1 >= 1 && !$0.2 }
            }
            let refund = try #require(attempted.first { $0.value.0 == "REFUND" }?.key)

            // The store is killed (no shutdown) and started again on its state directory; the verifier comes back.
            try await world.sandbox.crash()
            let sandbox = try world.sandbox.restarted()
            let verifier = try world.verifier.restarted()
            do {
                try await sandbox.waitUntilReady()
                #expect(try await deliveries(sandbox)[refund]?.0 == "REFUND", "the notification log was lost")
                try await verifier.waitUntilReady()

                // Without any call, the recovery job finds the refund in the history and applies it.
                let refunded = Holdings(gems: nil, garden: false, refunds: 1)
                #expect(
                    try await eventually({ Holdings(try await world.customerInfo("kim")) }) { $0 == refunded }
                        == refunded)

                // The receiver comes back and the notification is delivered at last: a duplicate, not applied again.
                let gateway = try notified.gateway.restarted()
                defer { _ = gateway }
                try await gateway.waitUntilReady()
                let (status, _) = try await sandbox.post(
                    "/sandbox/notifications/\(refund)/resend", json: Data("{}".utf8))
                #expect(status == .ok)
                #expect(try await deliveries(sandbox)[refund]?.2 == true)
                #expect(Holdings(try await world.customerInfo("kim")) == refunded)
                let events = try await world.eventTypes()
                #expect(events.filter { $0 == "refund" }.count == 1, "\(events)")
                _ = try? await gateway.terminate()
            } catch {
                _ = try? await verifier.terminate()
                _ = try? await sandbox.terminate()
                throw error
            }
            _ = try? await verifier.terminate()
            _ = try? await sandbox.terminate()
        }
    }

    /// The app's refund lookups: original transaction id -> refunds Apple listed, and when it was last asked.
    func lookups(_ world: StoreWorld, in database: DatabaseSettings) async throws
        -> [String: (refunds: Int, checkedAt: Date)]
    {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT original_transaction_id, refunds, checked_at FROM verifier.refund_lookups
                WHERE app_id = \(world.appID)
                """)
            var found: [String: (refunds: Int, checkedAt: Date)] = [:]
            for try await (id, refunds, checked) in rows.decode((String, Int, Date).self) {
                found[id] = (refunds, checked)
            }
            return found
        }
    }

    @Test func aRefundOfAPurchaseWithoutAnAppAccountTokenIsFoundWithoutAnyNotification() async throws {
        // A database of its own: the verifier's recovery runs read every app's history, and in the shared test
        // database the other suites' apps would stand in line before this one's.
        try await TestDatabase.withFreshDatabase { database in
            try await lookupsFindTheRefund(database: database)
        }
    }

    private func lookupsFindTheRefund(database: DatabaseSettings) async throws {
        let shared = try TestDatabase.url()
        let url = String(shared[..<(shared.lastIndex(of: "/") ?? shared.endIndex)]) + "/" + database.database
        // No notification URL: the sandbox sends nothing and keeps no history; only Get Refund History knows.
        try await StoreWorld.run(databaseURL: url, verifierEnvironment: Self.environment) { world in
            try await world.importCatalog(RefundReversalEndToEndTests.products)
            try await world.configureApple(apiKey: true, environments: ["sandbox"])
            let garden = try await buy(world, "garden.extra", type: "Non-Consumable", token: nil, for: "lou")
            let gems = try await buy(world, "gems.100", type: "Consumable", token: nil, for: "lou")
            let owned = Holdings(gems: 100, garden: true, refunds: 0)
            #expect(try await eventually({ Holdings(try await world.customerInfo("lou")) }) { $0 == owned } == owned)

            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(garden)/refund", ["reason": 1])
            let refunded = Holdings(gems: 100, garden: false, refunds: 1)
            #expect(
                try await eventually({ Holdings(try await world.customerInfo("lou")) }) { $0 == refunded } == refunded)

            // Later runs ask again (the gems are not refunded); nothing is applied twice.
            let first = try await eventually({ try await lookups(world, in: database) }) {
                $0[gems] != nil && $0[garden] != nil
            }
            let firstGems = try #require(first[gems]).checkedAt
            let later = try await eventually({ try await lookups(world, in: database) }) {
                ($0[gems]?.checkedAt ?? .distantPast) > firstGems
            }
            #expect((later[gems]?.checkedAt ?? .distantPast) > firstGems, "the gems were not asked about again")
            #expect(first[garden]?.refunds == 1 && later[gems]?.refunds == 0)
            #expect(Holdings(try await world.customerInfo("lou")) == refunded)
            let events = try await world.eventTypes()
            #expect(events.filter { $0 == "refund" }.count == 1, "\(events)")
        }
    }
}
