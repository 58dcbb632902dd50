import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Consumables bought on Google Play for an app whose Google credentials say `consume_consumables`: granted once,
/// consumed at Google only once granted, so the same buyer can buy and be granted them again; a consumed token
/// presented again grants nothing more; a non-consumable is never consumed; with the setting off nothing is; and a
/// verifier killed between the grant and the consume consumes it after it comes back.
@Suite(.serialized) struct GoogleConsumeEndToEndTests {
    static var products: [[String: Any]] {
        [
            [
                "product_id": "fertilizer", "type": "consumable", "consumable_quantity": 10, "review_state": "approved",
                "cleared_for_sale": true, "default_locale": "en", "localizations": ["en": ["name": "Fertilizer"]],
                "store_product_ids": ["play_store": "fertilizer_10"],
            ],
            [
                "product_id": "garden", "type": "non_consumable", "entitlements": ["garden"],
                "review_state": "approved", "cleared_for_sale": true, "default_locale": "en",
                "localizations": ["en": ["name": "Extra garden"]], "store_product_ids": ["play_store": "extra_garden"],
            ],
        ]
    }

    /// A world on a database of its own (another verifier's background consumer would take this app's queue), with
    /// the catalog above and Google credentials that consume consumables when `consume`. The background consumer
    /// first looks at a queued consume `retrySeconds` after it was queued: long enough by default that the request
    /// which granted it is the one that consumes it (a background consume racing it would be harmless, but counted).
    func withWorld(
        consume: Bool, retrySeconds: String = "60",
        _ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(
                databaseURL: database.url, verifierEnvironment: ["SHOPKEEPER_APPLY_RETRY_SECONDS": retrySeconds]
            ) { world in
                try await world.importCatalog(Self.products)
                try await world.configureGoogle(extra: ["consume_consumables": consume])
                try await body(world, database)
            }
        }
    }

    /// Buys `product` at the sandbox as `buyer` (a Google account); the sandbox's answer (409 when the buyer owns it
    /// unconsumed).
    func buy(_ world: StoreWorld, _ product: String, buyer: String) async throws -> StoreWorld.Answer {
        try await world.sandbox(
            .POST, "/sandbox/google/purchases",
            [
                "package_name": world.packageName, "product_id": product, "type": "product", "buyer": buyer,
                "obfuscated_account_id": buyer,
            ])
    }

    /// Presents a Play token for `user`.
    func present(_ world: StoreWorld, _ token: String, _ product: String, user: String) async throws
        -> StoreWorld.Answer
    {
        try await world.verifier(
            .POST, "/v1/purchases",
            ["app_user_id": user, "device_id": "pixel", "purchase_token": token, "product_id": product])
    }

    func balance(_ answer: StoreWorld.Answer) -> Int? {
        ((answer["customer"] as? [String: Any])?["consumable_balances"] as? [String: Int])?["fertilizer"]
    }

    /// The sandbox's view of a Play purchase: `consumed`, `acknowledged`, `voided`.
    func atGoogle(_ world: StoreWorld, _ token: String) async throws -> [String: Any] {
        try await world.sandbox(.GET, "/sandbox/google/purchases/\(token)").json
    }

    /// The verifier's consume queue of the app: transaction id -> state.
    func queue(_ world: StoreWorld, _ database: DatabaseSettings) async throws -> [String: String] {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT transaction_id, state FROM verifier.google_consumptions WHERE app_id = \(world.appID)")
            var states: [String: String] = [:]
            for try await (id, state) in rows.decode((String, String).self) { states[id] = state }
            return states
        }
    }

    @Test func aConsumableIsGrantedOnceConsumedAndBoughtAndGrantedAgainAndItsTokenGrantsNothingMore() async throws {
        try await withWorld(consume: true) { world, database in
            let first = try await buy(world, "fertilizer_10", buyer: "ana")
            let token = try #require(first["purchase_token"] as? String, "\(first.json)")
            // Like Play Billing: owned and not consumed, it cannot be bought again.
            let refused = try await buy(world, "fertilizer_10", buyer: "ana")
            #expect(refused.status == 409 && refused.code == "item_already_owned", "\(refused.json)")

            let granted = try await present(world, token, "fertilizer_10", user: "ana")
            #expect(granted.status == 200, "\(granted.json)")
            #expect(balance(granted) == 10)
            // Consumed once granted, before the answer: the buyer may buy it again at once.
            #expect(try await atGoogle(world, token)["consumed"] as? Bool == true)
            #expect(try await world.calls()["google.products.consume"] == 1)
            let order = try #require(first["order_id"] as? String)
            #expect(try await queue(world, database) == [order: "consumed"])

            // The consumed token again: the same transaction, nothing more credited, nothing consumed again.
            let replay = try await present(world, token, "fertilizer_10", user: "ana")
            #expect(replay.status == 200, "\(replay.json)")
            let outcomes = (replay["outcomes"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String }
            #expect(outcomes == ["already_applied"])
            #expect(balance(replay) == 10)
            #expect(try await world.calls()["google.products.consume"] == 1)

            // Bought again, granted again, consumed again.
            let second = try await buy(world, "fertilizer_10", buyer: "ana")
            #expect(second.status == 201, "\(second.json)")
            let secondToken = try #require(second["purchase_token"] as? String)
            let again = try await present(world, secondToken, "fertilizer_10", user: "ana")
            #expect(again.status == 200, "\(again.json)")
            #expect(balance(again) == 20)
            #expect(try await atGoogle(world, secondToken)["consumed"] as? Bool == true)
            #expect(try await buy(world, "fertilizer_10", buyer: "ana").status == 201)

            // A non-consumable is granted and never consumed: it stays owned at Google.
            let garden = try await buy(world, "extra_garden", buyer: "ana")
            let gardenToken = try #require(garden["purchase_token"] as? String)
            let owned = try await present(world, gardenToken, "extra_garden", user: "ana")
            #expect(owned.status == 200, "\(owned.json)")
            #expect(try await atGoogle(world, gardenToken)["consumed"] as? Bool == false)
            #expect(try await buy(world, "extra_garden", buyer: "ana").code == "item_already_owned")
            let gardenOrder = try #require(garden["order_id"] as? String)
            #expect(try await queue(world, database)[gardenOrder] == "skipped")
            #expect(try await world.calls()["google.products.consume"] == 2)
        }
    }

    @Test func withTheSettingOffNothingIsConsumed() async throws {
        try await withWorld(consume: false) { world, database in
            let bought = try await buy(world, "fertilizer_10", buyer: "bo")
            let token = try #require(bought["purchase_token"] as? String)
            let granted = try await present(world, token, "fertilizer_10", user: "bo")
            #expect(granted.status == 200, "\(granted.json)")
            #expect(balance(granted) == 10)
            let purchase = try await atGoogle(world, token)
            #expect(purchase["consumed"] as? Bool == false && purchase["acknowledged"] as? Bool == true)
            #expect(try await world.calls()["google.products.consume"] ?? 0 == 0)
            #expect(try await queue(world, database).isEmpty)
            #expect(try await buy(world, "fertilizer_10", buyer: "bo").code == "item_already_owned")
            let stores = try await world.verifier(.GET, "/v1/admin/stores", kind: .secret)
            #expect((stores["google"] as? [String: Any])?["consume_consumables"] as? Bool == false)
        }
    }

    @Test func aVerifierKilledBetweenTheGrantAndTheConsumeConsumesOnceBack() async throws {
        try await withWorld(consume: true, retrySeconds: "0.3") { world, database in
            let stores = try await world.verifier(.GET, "/v1/admin/stores", kind: .secret)
            #expect((stores["google"] as? [String: Any])?["consume_consumables"] as? Bool == true)
            let bought = try await buy(world, "fertilizer_10", buyer: "cy")
            let token = try #require(bought["purchase_token"] as? String)
            let order = try #require(bought["order_id"] as? String)
            // Google cannot consume for now: the grant stands, the consume waits in the queue.
            try await world.sandbox(
                .POST, "/sandbox/faults", ["endpoint": "google.products.consume", "count": 1000, "status": 503])
            let granted = try await present(world, token, "fertilizer_10", user: "cy")
            #expect(granted.status == 200, "\(granted.json)")
            #expect(balance(granted) == 10)
            #expect(try await atGoogle(world, token)["consumed"] as? Bool == false)
            #expect(try await queue(world, database) == [order: "pending"])

            // The verifier dies; Google recovers; the verifier comes back and consumes what it had granted.
            try await world.verifier.crash()
            try await world.sandbox(.DELETE, "/sandbox/faults")
            let verifier = try world.verifier.restarted()
            try await verifier.waitUntilReady()
            let consumed = try await ShopkeeperTestSupport.eventually(
                { try await atGoogle(world, token)["consumed"] as? Bool }, until: { $0 == true })
            #expect(consumed == true)
            let queued = try await ShopkeeperTestSupport.eventually(
                { try await queue(world, database) }, until: { $0[order] == "consumed" })
            #expect(queued == [order: "consumed"])
            let info = try await world.customerInfo("cy")
            #expect((info["consumable_balances"] as? [String: Int])?["fertilizer"] == 10, "\(info)")
            _ = try? await verifier.terminate()
        }
    }
}
