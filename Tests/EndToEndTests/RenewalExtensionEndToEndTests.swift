import Foundation
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Apple's Extend a Subscription Renewal Date for support, through the real verifier, subscriptions and entitlements
/// and the sandbox store's App Store Server API (which sends no notification here): the customer's expiry moves by
/// the days asked, once per `Idempotency-Key`, however often and however concurrently the request is sent.
@Suite(.serialized) struct RenewalExtensionEndToEndTests {
    static var products: [[String: Any]] { ReconciliationEndToEndTests.products }

    /// The customer's subscription's expiry.
    func expiry(_ world: StoreWorld, _ user: String) async throws -> Date? {
        let subscription = (try await world.customerInfo(user)["subscriptions"] as? [[String: Any]])?.first
        return (subscription?["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
    }

    func extend(
        _ world: StoreWorld, _ original: String, key: String?, _ body: [String: Any], kind: APIKeyKind = .secret,
        store: String = "apple"
    ) async throws -> StoreWorld.Answer {
        try await world.call(
            world.verifier, .POST, "/v1/admin/stores/\(store)/subscriptions/\(original)/extend", body, kind: kind,
            headers: key.map { [("Idempotency-Key", $0)] } ?? [])
    }

    @Test func anExtensionMovesTheExpiryOncePerIdempotencyKey() async throws {
        try await StoreWorld.run { world in
            try await world.importCatalog(Self.products)
            try await world.configureApple(apiKey: true)
            let bought = try await world.buyAppleSubscription()
            let original = bought.originalTransactionID
            try await world.presentApple(bought.jws, for: "kim")
            let start = try #require(try await expiry(world, "kim"))
            let day: TimeInterval = 86_400

            let first = try await extend(world, original, key: "outage-1", ["extend_by_days": 5, "reason_code": 3])
            #expect(first.status == 200, "\(first.json)")
            #expect(first["effective_date"] as? String == start.addingTimeInterval(5 * day).formatted(.iso8601))
            #expect(first["extend_by_days"] as? Int == 5)
            // Read again at once: the expiry moved without Apple's notification.
            #expect(try await expiry(world, "kim") == start.addingTimeInterval(5 * day))

            // The same key again: the same answer, Apple not asked again, the expiry moved once.
            let retry = try await extend(world, original, key: "outage-1", ["extend_by_days": 5, "reason_code": 3])
            #expect(retry.status == 200, "\(retry.json)")
            #expect(retry.headers.first(name: "idempotent-replayed") == "true")
            #expect(retry["effective_date"] as? String == first["effective_date"] as? String)
            #expect(retry["request_identifier"] as? String == first["request_identifier"] as? String)
            #expect(try await world.calls()["apple.sandbox.extend"] == 1)
            let reused = try await extend(world, original, key: "outage-1", ["extend_by_days": 6, "reason_code": 3])
            #expect(reused.status == 422)
            #expect(reused.code == "idempotency_key_reused")

            // A new key sent five times at once: one extension.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        try await extend(world, original, key: "outage-2", ["extend_by_days": 2, "reason_code": 1])
                            .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.contains(200) && statuses.allSatisfy { $0 == 200 || $0 == 409 }, "\(statuses)")
            let settled = try await ShopkeeperTestSupport.eventually({
                try await extend(world, original, key: "outage-2", ["extend_by_days": 2, "reason_code": 1])
            }) { $0.status == 200 }
            #expect(settled.headers.first(name: "idempotent-replayed") == "true")
            #expect(try await world.calls()["apple.sandbox.extend"] == 2)
            #expect(try await expiry(world, "kim") == start.addingTimeInterval(7 * day))

            // A third extension within a year is Apple's to refuse; the refusal is kept under its key too.
            let third = try await extend(world, original, key: "outage-3", ["extend_by_days": 1, "reason_code": 0])
            #expect(third.status == 409, "\(third.json)")
            #expect(third.code == "subscription_extension_ineligible")
            let thirdAgain = try await extend(
                world, original, key: "outage-3", ["extend_by_days": 1, "reason_code": 0])
            #expect(thirdAgain.code == "subscription_extension_ineligible")
            #expect(try await world.calls()["apple.sandbox.extend"] == 3)
            #expect(try await expiry(world, "kim") == start.addingTimeInterval(7 * day))
        }
    }

    /// Apple's `RENEWAL_EXTENDED` alone (an extension made elsewhere, in App Store Connect, say) moves the expiry: the
    /// verifier keeps the later end of a transaction it had recorded.
    @Test func aRenewalExtendedNotificationMovesTheExpiry() async throws {
        try await NotifiedStoreWorld.run(products: Self.products, apiKey: false) { notified in
            let world = notified.world
            let bought = try await world.buyAppleSubscription()
            let (original, jws) = (bought.originalTransactionID, bought.jws)
            try await world.presentApple(jws, for: "max")
            let start = try #require(try await expiry(world, "max"))
            let extended = try await world.sandbox(
                .POST, "/sandbox/apple/subscriptions/\(original)/extend", ["days": 10])
            #expect(extended["result"] as? String == "renewal_extended", "\(extended.json)")
            let moved = try await ShopkeeperTestSupport.eventually({ try await expiry(world, "max") }) {
                $0 == start.addingTimeInterval(10 * 86_400)
            }
            #expect(moved == start.addingTimeInterval(10 * 86_400))
            // An older proof presented again does not take the extension back.
            #expect(
                try await world.verifier(.POST, "/v1/purchases", ["app_user_id": "max", "signed_transaction": jws])
                    .status == 200)
            #expect(try await expiry(world, "max") == start.addingTimeInterval(10 * 86_400))
        }
    }

    @Test func badExtensionRequestsAreRefusedClearly() async throws {
        try await StoreWorld.run { world in
            try await world.configureApple(apiKey: true)
            let bought = try await world.buyAppleSubscription()
            let original = bought.originalTransactionID
            try await world.presentApple(bought.jws, for: "lee")
            let good: [String: Any] = ["extend_by_days": 3, "reason_code": 1]
            let cases: [BadExtension] = [
                BadExtension(original, key: nil, good, status: 400, code: "idempotency_key_required"),
                BadExtension(original, key: "k1", ["extend_by_days": 0, "reason_code": 1], status: 422),
                BadExtension(original, key: "k2", ["extend_by_days": 91, "reason_code": 1], status: 422),
                BadExtension(original, key: "k3", ["extend_by_days": 3, "reason_code": 4], status: 422),
                BadExtension(original, key: "k4", ["extend_by_days": "3", "reason_code": 1], status: 422),
                BadExtension(original, key: "k5", ["reason_code": 1], status: 422),
                BadExtension("not-a-subscription", key: "k6", good, status: 404, code: "subscription_not_found"),
                BadExtension("2000000000000009", key: "k7", good, status: 404, code: "subscription_not_found"),
                BadExtension(original, key: "k8", good, kind: .public, status: 403, code: nil),
                BadExtension(original, key: "k9", good, store: "google", status: 404, code: "store_not_supported"),
            ]
            for bad in cases {
                let answer = try await extend(
                    world, bad.original, key: bad.key, bad.body, kind: bad.kind, store: bad.store)
                #expect(answer.status == bad.status, "\(bad.key ?? "-") \(bad.body): \(answer.json)")
                if let code = bad.code { #expect(answer.code == code, "\(bad.body): \(answer.json)") }
            }
            // Nothing was asked of Apple.
            #expect((try await world.calls()["apple.sandbox.extend"] ?? 0) == 0)
            // The keys of refused requests stay unused.
            #expect(try await extend(world, original, key: "k2", good).status == 200)
        }
    }

    /// A request that must be refused before Apple is asked.
    struct BadExtension {
        var original: String
        var key: String?
        var body: [String: Any]
        var kind: APIKeyKind = .secret
        var store = "apple"
        var status: Int
        var code: String?

        init(
            _ original: String, key: String?, _ body: [String: Any], kind: APIKeyKind = .secret,
            store: String = "apple",
            status: Int, code: String? = "validation_failed"
        ) {
            (self.original, self.key, self.body, self.kind, self.store) = (original, key, body, kind, store)
            (self.status, self.code) = (status, code)
        }
    }
}
