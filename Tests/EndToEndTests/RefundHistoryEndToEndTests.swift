import Foundation
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Apple's Get Refund History for support, through the real verifier, entitlements and the sandbox store's App Store
/// Server API: a refund whose notification never arrived is found and applied once, one that arrived is not counted
/// again, and Apple's pages are all read.
@Suite(.serialized) struct RefundHistoryEndToEndTests {
    /// Buys `product` with the customer's app account token (the sandbox's Apple account) and, when `user` is given,
    /// presents it for them; returns the transaction id.
    func buy(_ world: StoreWorld, _ product: String, type: String, token: String, for user: String?) async throws
        -> String
    {
        let bought = try await world.buyApple(product, type: type, ["app_account_token": token])
        if let user { try await world.presentApple(bought.jws, for: user, ["device_id": "phone"]) }
        return bought.transactionID
    }

    /// Transaction id -> `newly_applied` of a refund history answer.
    func refunds(_ answer: StoreWorld.Answer) -> [String: Bool] {
        var found: [String: Bool] = [:]
        for refund in answer["refunds"] as? [[String: Any]] ?? [] {
            guard let transaction = refund["transaction"] as? [String: Any],
                let id = transaction["transaction_id"] as? String
            else { continue }
            found[id] = refund["newly_applied"] as? Bool
        }
        return found
    }

    func holdings(_ world: StoreWorld, _ user: String, until expected: RefundReversalEndToEndTests.Holdings)
        async throws -> RefundReversalEndToEndTests.Holdings
    {
        try await ShopkeeperTestSupport.eventually({ .init(try await world.customerInfo(user)) }) { $0 == expected }
    }

    @Test func aRefundWhoseNotificationNeverArrivedIsFoundAndAppliedOnce() async throws {
        try await NotifiedStoreWorld.run(products: RefundReversalEndToEndTests.products, apiKey: true) { notified in
            let world = notified.world
            // The app account token Shopkeeper derives from the app user id, as the app sets it.
            let token = AppAccountToken.uuid(forAppUserID: "hal").uuidString.lowercased()
            let gems = try await buy(world, "gems.100", type: "Consumable", token: token, for: "hal")
            let garden = try await buy(world, "garden.extra", type: "Non-Consumable", token: token, for: "hal")
            #expect(try await holdings(world, "hal", until: .init(gems: 100, garden: true, refunds: 0)).refunds == 0)

            // The gems' refund arrives as a notification; the garden's never does (deliveries held).
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(gems)/refund", ["reason": 1])
            let gemsRefunded = RefundReversalEndToEndTests.Holdings(gems: 0, garden: true, refunds: 1)
            #expect(try await holdings(world, "hal", until: gemsRefunded) == gemsRefunded)
            let held = try await world.sandbox(.PUT, "/sandbox/notifications", ["hold": true])
            #expect(held["hold"] as? Bool == true)
            try await world.sandbox(.POST, "/sandbox/apple/transactions/\(garden)/refund", ["reason": 0])
            #expect(RefundReversalEndToEndTests.Holdings(try await world.customerInfo("hal")) == gemsRefunded)

            // Support asks for hal's refunds: both are listed, the garden's is news and ends the garden now.
            let first = try await world.verifier(.GET, "/v1/admin/stores/apple/refunds?app_user_id=hal", kind: .secret)
            #expect(first.status == 200, "\(first.json)")
            #expect(refunds(first) == [gems: false, garden: true], "\(first.json)")
            let owners = first["customers"] as? [[String: Any]] ?? []
            #expect(owners.map { $0["app_user_ids"] as? [String] } == [["hal"]], "\(first.json)")
            let bothRefunded = RefundReversalEndToEndTests.Holdings(gems: 0, garden: false, refunds: 2)
            #expect(RefundReversalEndToEndTests.Holdings(try await world.customerInfo("hal")) == bothRefunded)

            // Asked again, by customer or by transaction: nothing is news, nothing is applied twice.
            let again = try await world.verifier(.GET, "/v1/admin/stores/apple/refunds?app_user_id=hal", kind: .secret)
            #expect(refunds(again) == [gems: false, garden: false], "\(again.json)")
            let byTransaction = try await world.verifier(
                .GET, "/v1/admin/stores/apple/refunds?transaction_id=\(gems)", kind: .secret)
            #expect(refunds(byTransaction) == [gems: false, garden: false], "\(byTransaction.json)")
            #expect(RefundReversalEndToEndTests.Holdings(try await world.customerInfo("hal")) == bothRefunded)
            let events = try await world.eventTypes()
            #expect(events.filter { $0 == "refund" }.count == 2, "\(events)")
        }
    }

    @Test func everyPageOfAppleRefundHistoryIsRead() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let token = UUID().uuidString.lowercased()
            // 21 refunds: more than one of Apple's pages of 20. None was presented, so none has an owner here.
            var ids: [String] = []
            for _ in 0..<21 {
                let id = try await buy(world, "gems.100", type: "Consumable", token: token, for: nil)
                try await world.sandbox(.POST, "/sandbox/apple/transactions/\(id)/refund", ["reason": 1])
                ids.append(id)
            }
            let before = try await world.calls()["apple.sandbox.refunds"] ?? 0
            let found = try await world.verifier(
                .GET, "/v1/admin/stores/apple/refunds?transaction_id=\(ids[0])", kind: .secret)
            #expect(found.status == 200, "\(found.json)")
            #expect(refunds(found) == Dictionary(uniqueKeysWithValues: ids.map { ($0, true) }))
            #expect((found["customers"] as? [Any])?.isEmpty == true)
            #expect(try await world.calls()["apple.sandbox.refunds"] == before + 2)
            let again = try await world.verifier(
                .GET, "/v1/admin/stores/apple/refunds?transaction_id=\(ids[20])", kind: .secret)
            #expect(refunds(again) == Dictionary(uniqueKeysWithValues: ids.map { ($0, false) }))
        }
    }

    @Test func badRefundHistoryRequestsAreRefusedClearly() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: false)
            let path = "/v1/admin/stores/apple/refunds"
            let noKey = try await world.verifier(.GET, "\(path)?transaction_id=2000000000000001", kind: .secret)
            #expect(noKey.status == 422)
            #expect(noKey.code == "api_key_required")
            try await world.configureApple(apiKey: true)
            let cases: [(String, APIKeyKind, Int, String?)] = [
                (path, .secret, 400, "invalid_query"),
                ("\(path)?app_user_id=a&transaction_id=1", .secret, 400, "invalid_query"),
                ("\(path)?transaction_id=abc", .secret, 400, "invalid_query"),
                // The one rule of an app user id: no control character, 1 to 256 characters (not bytes).
                ("\(path)?app_user_id=", .secret, 400, "invalid_query"),
                ("\(path)?app_user_id=a%09b", .secret, 400, "invalid_query"),
                ("\(path)?app_user_id=" + String(repeating: "%C3%A9", count: 257), .secret, 400, "invalid_query"),
                ("\(path)?app_user_id=" + String(repeating: "%C3%A9", count: 256), .secret, 200, nil),
                ("\(path)?transaction_id=2000000000000001", .secret, 404, "transaction_not_found"),
                ("\(path)?app_user_id=nobody", .public, 403, nil),
                ("/v1/admin/stores/google/refunds?app_user_id=nobody", .secret, 404, "store_not_supported"),
            ]
            for (target, kind, status, code) in cases {
                let answer = try await world.verifier(.GET, target, kind: kind)
                #expect(answer.status == status, "\(target): \(answer.json)")
                if let code { #expect(answer.code == code, "\(target): \(answer.json)") }
            }
            let nobody = try await world.verifier(.GET, "\(path)?app_user_id=nobody", kind: .secret)
            #expect(nobody.status == 200)
            #expect((nobody["refunds"] as? [Any])?.isEmpty == true, "\(nobody.json)")
        }
    }
}
