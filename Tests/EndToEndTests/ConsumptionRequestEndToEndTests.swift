import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Apple's `CONSUMPTION_REQUEST` (a customer asked Apple for a refund), sent by the sandbox store through the real
/// gateway to the verifier, answered through the sandbox's App Store Server API when the app says so.
@Suite(.serialized) struct ConsumptionRequestEndToEndTests {
    /// A world on its own database with a gateway the sandbox notifies, a consumable in the catalog and Apple
    /// credentials with an API key and `consumptionAnswers` (none when `nil`).
    func withWorld(
        consumptionAnswers: (refundPreference: String, sampleContentProvided: Bool)?,
        _ body: @Sendable @escaping (StoreWorld, DatabaseSettings) async throws -> Void
    ) async throws {
        var settings: [String: Any] = [:]
        if let consumptionAnswers {
            settings["consumption_answers"] = [
                "refund_preference": consumptionAnswers.refundPreference,
                "sample_content_provided": consumptionAnswers.sampleContentProvided,
            ]
        }
        try await NotifiedStoreWorld.run(products: [Self.gems], apiKey: true, appleSettings: settings) { notified in
            try await body(notified.world, notified.database)
        }
    }

    /// A consumable of 100 units, `gems.100` on the App Store.
    static var gems: [String: Any] {
        [
            "product_id": "gems", "type": "consumable", "consumable_quantity": 100, "review_state": "approved",
            "cleared_for_sale": true, "free": false, "default_locale": "en",
            "store_product_ids": ["app_store": "gems.100"],
            "localizations": ["en": ["name": "Gems", "description": "100 gems"]],
        ]
    }

    /// A consumable bought in the sandbox; when `owner` is set, presented by that customer.
    func buyGems(_ world: StoreWorld, owner: String?) async throws -> String {
        let bought = try await world.buyApple("gems.100", type: "Consumable")
        if let owner { try await world.presentApple(bought.jws, for: owner, ["device_id": "phone"]) }
        return bought.transactionID
    }

    /// Has the sandbox send a `CONSUMPTION_REQUEST` about `transaction`; returns its notification UUID.
    func requestConsumption(_ world: StoreWorld, transaction: String) async throws -> String {
        let sent = try await world.sandbox(
            .POST, "/sandbox/notifications/apple",
            [
                "type": "CONSUMPTION_REQUEST", "transaction_id": transaction,
                "consumption_request_reason": "UNINTENDED_PURCHASE",
            ])
        #expect(sent.status == 200 || sent.status == 201, "\(sent.json)")
        return try #require(sent["notification_uuid"] as? String, "\(sent.json)")
    }

    /// The bodies the app sent Apple about `transaction` (once `count` arrived, or after 20 seconds).
    func consumption(_ world: StoreWorld, _ transaction: String, count: Int = 1) async throws -> [[String: Any]] {
        try await ShopkeeperTestSupport.eventually({ try await sent(world, transaction) }) { $0.count >= count }
    }

    /// The bodies the app has sent Apple about `transaction` so far.
    func sent(_ world: StoreWorld, _ transaction: String) async throws -> [[String: Any]] {
        let answer = try await world.sandbox(.GET, "/sandbox/apple/transactions/\(transaction)/consumption")
        return ((answer["consumption"] as? [[String: Any]]) ?? []).compactMap { entry in
            guard let text = entry["body"] as? String else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
    }

    /// The answer the verifier kept for a notification, once it has one (or after 20 seconds).
    func keptAnswer(_ database: DatabaseSettings, _ uuid: String) async throws -> String? {
        try await ShopkeeperTestSupport.eventually(
            {
                try await TestDatabase.withClient(database) { client in
                    let rows = try await client.query(
                        "SELECT answer FROM verifier.notifications WHERE notification_id = \(uuid)")
                    for try await answer in rows.decode(String?.self) { return answer }
                    return nil
                }
            }, until: { $0 != nil })
    }

    @Test func withConsentTheOwnersPurchaseIsAnsweredOnceWithTheAppsPreferences() async throws {
        try await withWorld(consumptionAnswers: ("DECLINE", true)) { world, database in
            let owned = try await buyGems(world, owner: "ana")
            let uuid = try await requestConsumption(world, transaction: owned)
            let bodies = try await consumption(world, owned)
            #expect(bodies.count == 1)
            let body = try #require(bodies.first)
            #expect(body["customerConsented"] as? Bool == true)
            #expect(body["deliveryStatus"] as? String == "DELIVERED")
            #expect(body["sampleContentProvided"] as? Bool == true)
            #expect(body["refundPreference"] as? String == "DECLINE")
            #expect(try await keptAnswer(database, uuid)?.hasPrefix("answered") == true)

            // Apple delivers the same notification again: it is recorded once and answered once.
            let resent = try await world.sandbox(.POST, "/sandbox/notifications/\(uuid)/resend?times=3&concurrency=3")
            #expect((resent["statuses"] as? [Int])?.allSatisfy { $0 == 200 } == true, "\(resent.json)")
            try await Task.sleep(for: .seconds(1))
            #expect(try await sent(world, owned).count == 1)

            // A purchase nobody presented here: nothing is claimed about it.
            let unknown = try await buyGems(world, owner: nil)
            let unknownUUID = try await requestConsumption(world, transaction: unknown)
            #expect(try await keptAnswer(database, unknownUUID)?.hasPrefix("not answered") == true)
            #expect(try await sent(world, unknown).isEmpty)
        }
    }

    @Test func withoutConsentNothingIsSentAndBadSettingsAreRefused() async throws {
        try await withWorld(consumptionAnswers: nil) { world, database in
            let owned = try await buyGems(world, owner: "ben")
            let uuid = try await requestConsumption(world, transaction: owned)
            #expect(try await keptAnswer(database, uuid)?.contains("consumption_answers") == true)
            #expect(try await sent(world, owned).isEmpty)

            let refused = try await world.verifier(
                .PUT, "/v1/admin/stores/apple",
                ["bundle_id": world.bundleID, "consumption_answers": ["refund_preference": "MAYBE"]], kind: .secret)
            #expect(refused.status == 422, "\(refused.json)")
            #expect(refused["code"] as? String == "validation_failed")
            let stored = try await world.verifier(.GET, "/v1/admin/stores", nil, kind: .secret)
            #expect("\(stored.json)".contains("MAYBE") == false)
        }
    }
}
