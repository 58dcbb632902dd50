import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Webhook delivery")
struct WebhookTests {
    /// Quick polling and retries, so a test sees several attempts within a second; receivers on loopback allowed.
    static let fast = [
        "SHOPKEEPER_WEBHOOK_POLL_MS": "20", "SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS": "0.05",
        "SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS": "2", "SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "true",
    ]

    /// Runs the services on a database of their own: every dispatcher serves every app of its database, so these
    /// tests keep other tests' dispatchers (with other retry settings) away from their deliveries, and theirs away
    /// from other tests' apps.
    static func run(
        replicas: Int = 1, environment: [String: String] = [:],
        resolver: any WebhookResolver = SystemWebhookResolver(),
        _ body: @Sendable (EntitlementsHarness) async throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { database in
            var values = fast.merging(environment) { _, new in new }
            values["DATABASE_URL"] = database.url
            try await EntitlementsHarness.run(
                replicas: replicas, environment: values, webhookResolver: resolver, body)
        }
    }

    @Test("A failing receiver gets the event again with backoff until it answers 2xx, then never again")
    func retriedUntilDelivered() async throws {
        try await WebhookReceiver.run(.failFirst(2)) { receiver in
            try await Self.run { harness in
                let secret = try await harness.configureWebhook(receiver.url)
                let purchase = EntitlementsFixtures.transaction(product: "garden")
                _ = try await harness.applied([purchase])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("the event is delivered") { try await harness.deliveryState(id) == "delivered" }
                try await Task.sleep(for: .milliseconds(300))

                let received = await receiver.requests(for: id)
                #expect(received.map(\.status) == [.internalServerError, .internalServerError, .ok])
                let response = try await harness.send(.get, "/v1/admin/events/\(id)")
                #expect(try response.violations(.get, "/v1/admin/events/{event_id}") == [])
                let event = try harness.json(response)
                let delivery = try #require(event["delivery"] as? [String: Any])
                #expect(delivery["attempts"] as? Int == 3)
                #expect(delivery["last_status"] as? Int == 200)
                #expect(delivery["delivered_at"] is String)
                #expect(delivery["next_attempt_at"] is NSNull)

                let success = try #require(received.last)
                #expect(success.headers[.contentType] == "application/json")
                #expect(success.headers[HTTPField.Name("Shopkeeper-Event-Type")!] == "initial_purchase")
                #expect(success.headers[HTTPField.Name("Shopkeeper-Delivery-Attempt")!] == "3")
                try Self.verify(success, secret: secret)

                let body = try TestJSON.object(success.body)
                #expect(Set(body.keys) == ["id", "type", "created_at", "app_id", "app_user_id", "environment", "data"])
                #expect(body["id"] as? String == id)
                #expect(body["type"] as? String == "initial_purchase")
                #expect(body["app_id"] as? String == harness.appID)
                #expect(body["app_user_id"] as? String == "user-1")
                #expect(body["environment"] as? String == "sandbox")
                let created = try #require(body["created_at"] as? String)
                #expect(created.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)
                #expect(created == event["created_at"] as? String)
                let data = try #require(body["data"] as? [String: Any])
                #expect(data["product_id"] as? String == "garden")
                #expect(data["transaction_id"] as? String == purchase.transactionID)
                let value = try JSONDecoder().decode(JSONValue.self, from: success.body)
                let schema: [String: Any] = ["$ref": "#/components/schemas/WebhookEvent"]
                #expect(try OpenAPIDocument.load().validate(value, against: schema, at: "", closed: true) == [])
            }
        }
    }

    @Test("A delivery that keeps failing past the retry window is dead; a replay delivers it")
    func deadThenReplayed() async throws {
        try await WebhookReceiver.run(.always(.serviceUnavailable)) { receiver in
            try await Self.run(environment: ["SHOPKEEPER_WEBHOOK_GIVE_UP_HOURS": "0.0005"]) { harness in
                _ = try await harness.configureWebhook(receiver.url)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("the delivery is dead") { try await harness.deliveryState(id) == "dead" }
                let dead = try harness.json(try await harness.send(.get, "/v1/admin/events/\(id)"))
                let delivery = try #require(dead["delivery"] as? [String: Any])
                #expect(delivery["last_status"] as? Int == 503)
                #expect(delivery["last_error"] as? String == "HTTP 503")
                // Under load the first attempt may already come after the short window: one attempt or more.
                #expect((delivery["attempts"] as? Int ?? 0) >= 1)
                #expect(delivery["next_attempt_at"] is NSNull)
                let failures = await receiver.requests(for: id).count

                await receiver.answer(.always(.ok))
                let replay = try await harness.send(.post, "/v1/admin/events/\(id)/replay")
                #expect(replay.status == .accepted)
                #expect(try replay.violations(.post, "/v1/admin/events/{event_id}/replay") == [])
                let replayed = try #require(try harness.json(replay)["delivery"] as? [String: Any])
                #expect(replayed["state"] as? String == "pending")
                try await eventually("the replay is delivered") { try await harness.deliveryState(id) == "delivered" }
                let received = await receiver.requests(for: id)
                #expect(received.count == failures + 1)
                #expect(received.last?.status == .ok)
            }
        }
    }

    @Test("Removing the webhook ends pending deliveries as dead; a rotated secret signs what follows")
    func removedAndRotated() async throws {
        try await WebhookReceiver.run(.always(.internalServerError)) { receiver in
            try await Self.run(environment: ["SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS": "0.3"]) { harness in
                let first = try await harness.configureWebhook(receiver.url)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("a first attempt") { await !receiver.requests(for: id).isEmpty }
                #expect(try await harness.putSettings(#"{"webhook_url": null}"#).status == .ok)
                try await eventually("the delivery is dead") { try await harness.deliveryState(id) == "dead" }
                let event = try harness.json(try await harness.send(.get, "/v1/admin/events/\(id)"))
                #expect((event["delivery"] as? [String: Any])?["last_error"] as? String == "no webhook configured")

                await receiver.answer(.always(.ok))
                #expect(try await harness.putSettings(#"{"webhook_url": "\#(receiver.url)"}"#).status == .ok)
                let rotated = try await harness.send(.post, "/v1/admin/entitlements/webhook-secret")
                let second = try #require(try harness.json(rotated)["webhook_secret"] as? String)
                #expect(second != first)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "user-2")
                let next = try #require(try await harness.eventIDs(user: "user-2").first)
                try await eventually("delivered") { try await harness.deliveryState(next) == "delivered" }
                let request = try #require(await receiver.requests(for: next).last)
                try Self.verify(request, secret: second)
                #expect(throws: (any Error).self) { try Self.verify(request, secret: first) }
            }
        }
    }

    @Test("Two replicas deliver each of 40 events exactly once")
    func twoReplicasExactlyOnce() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await Self.run(replicas: 2) { harness in
                _ = try await harness.configureWebhook(receiver.url)
                try await harness.applyGardensAtOnce(40, userPrefix: "user")
                let ids = try await harness.eventIDs(limit: 100)
                #expect(ids.count == 40)
                try await eventually("every event is delivered") {
                    let page = try harness.json(try await harness.send(.get, "/v1/admin/events?limit=100"))
                    let events = page["events"] as? [[String: Any]] ?? []
                    return events.allSatisfy { ($0["delivery"] as? [String: Any])?["state"] as? String == "delivered" }
                }
                try await Task.sleep(for: .milliseconds(300))
                let requests = await receiver.requests
                let counts = Dictionary(grouping: requests.compactMap(\.eventID)) { $0 }.mapValues(\.count)
                #expect(Set(counts.keys) == Set(ids))
                #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts.filter { $0.value > 1 })")
            }
        }
    }

    @Test(
        "A redirect is a failed attempt, never followed; so is an answer later than the timeout",
        arguments: [
            (WebhookReceiver.Script.redirect, 307, "HTTP 307"),
            (WebhookReceiver.Script.slow(.seconds(2)), nil, "timeout"),
        ])
    func failedAttempts(script: WebhookReceiver.Script, status: Int?, error: String) async throws {
        try await WebhookReceiver.run(script) { receiver in
            let environment = [
                "SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS": "0.3", "SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS": "60",
            ]
            try await Self.run(environment: environment) { harness in
                _ = try await harness.configureWebhook(receiver.url)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("a failed attempt") {
                    let event = try harness.json(try await harness.send(.get, "/v1/admin/events/\(id)"))
                    return (event["delivery"] as? [String: Any])?["last_error"] is String
                }
                let event = try harness.json(try await harness.send(.get, "/v1/admin/events/\(id)"))
                let delivery = try #require(event["delivery"] as? [String: Any])
                #expect(delivery["state"] as? String == "pending")
                #expect(delivery["attempts"] as? Int == 1)
                #expect(delivery["last_status"] as? Int == status)
                #expect(delivery["last_error"] as? String == error)
                #expect(delivery["next_attempt_at"] is String)
                #expect(await receiver.requests(for: id).count == 1)
            }
        }
    }

    /// How a receiver is reached in ``coarseReasons``.
    enum Reach: Sendable, CustomStringConvertible {
        /// Its own URL.
        case receiver
        /// `https` to its plain HTTP port.
        case tlsToPlainHTTP
        /// A loopback port where nothing listens any more.
        case closedPort
        /// A name no resolver knows.
        case unknownName

        var description: String {
            switch self {
            case .receiver: "receiver"
            case .tlsToPlainHTTP: "TLS to plain HTTP"
            case .closedPort: "closed port"
            case .unknownName: "unknown name"
            }
        }
    }

    @Test(
        "A failed delivery shows the tenant a coarse reason, never the receiver's text or an error's description",
        arguments: [
            (
                WebhookReceiver.Script.text(.internalServerError, "db password hunter2 at 10.9.8.7"), Reach.receiver,
                500, "HTTP 500"
            ),
            (
                WebhookReceiver.Script.text(.notFound, "Cannot POST /internal-admin on 10.9.8.7"), Reach.receiver,
                404, "HTTP 404"
            ),
            (WebhookReceiver.Script.hang, Reach.receiver, nil, "timeout"),
            (WebhookReceiver.Script.always(.ok), Reach.tlsToPlainHTTP, nil, "TLS failure"),
            (WebhookReceiver.Script.always(.ok), Reach.closedPort, nil, "connection refused"),
            (WebhookReceiver.Script.always(.ok), Reach.unknownName, nil, "DNS failure"),
        ] as [(WebhookReceiver.Script, Reach, Int?, String)])
    func coarseReasons(script: WebhookReceiver.Script, reach: Reach, status: Int?, reason: String) async throws {
        let closed = try await WebhookReceiver.run(.always(.ok)) { $0.url }
        try await WebhookReceiver.run(script) { receiver in
            let url =
                switch reach {
                case .receiver: receiver.url
                case .tlsToPlainHTTP: receiver.url.replacingOccurrences(of: "http://", with: "https://")
                case .closedPort: closed
                case .unknownName: "http://hooks.unknown.test:\(receiver.port)/hooks/shopkeeper"
                }
            let environment = ["SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS": "60"]
            try await Self.run(environment: environment, resolver: StaticResolver(names: [:])) { harness in
                _ = try await harness.configureWebhook(url)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                let delivery = try await harness.failedDelivery(id)
                #expect(delivery["last_error"] as? String == reason)
                #expect(delivery["last_status"] as? Int == status)
                let listing = try await harness.send(.get, "/v1/admin/events?limit=50")
                let text = String(buffer: listing.body)
                for secret in ["hunter2", "10.9.8.7", "internal-admin", "Error", "NIO"] {
                    #expect(!text.contains(secret), "\(secret) in \(text)")
                }
            }
        }
    }

    @Test("Backoff doubles from the base, is capped at an hour, and jitters within its upper half")
    func backoff() {
        let base: Duration = .seconds(10)
        #expect(WebhookBackoff.delay(afterAttempt: 1, base: base, random: 1) == .seconds(10))
        #expect(WebhookBackoff.delay(afterAttempt: 1, base: base, random: 0) == .seconds(5))
        #expect(WebhookBackoff.delay(afterAttempt: 4, base: base, random: 1) == .seconds(80))
        #expect(WebhookBackoff.delay(afterAttempt: 30, base: base, random: 1) == .seconds(3600))
        #expect(WebhookBackoff.delay(afterAttempt: 1000, base: base, random: 0) == .seconds(1800))
        for _ in 0..<100 {
            let delay = WebhookBackoff.delay(afterAttempt: 3, base: base)
            #expect(delay >= .seconds(20) && delay <= .seconds(40))
        }
    }

    /// Checks `Shopkeeper-Signature` as a receiver would: HMAC-SHA256 over `"<t>.<body>"`, timestamp recent.
    static func verify(_ request: WebhookReceiver.Received, secret: String) throws {
        let header = try #require(request.signature)
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        let timestamp = try #require(fields["t"].flatMap { Int64($0) })
        let signature = try #require(fields["v1"])
        #expect(abs(Date().timeIntervalSince1970 - Double(timestamp)) < 300)
        var message = Data("\(timestamp).".utf8)
        message.append(request.body)
        let expected = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        guard Array(expected).hexString == signature else { throw HarnessError("the signature does not verify") }
    }
}

extension EntitlementsHarness {
    /// Applies `count` purchases of `garden` at once, each for a user of its own (`<userPrefix>-<index>`), through
    /// the two replicas in turn: a burst of events to deliver.
    func applyGardensAtOnce(_ count: Int, userPrefix: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await apply(
                        [EntitlementsFixtures.transaction(product: "garden")], user: "\(userPrefix)-\(index)",
                        replica: index % 2, atOnce: true)
                    guard response.status == .ok else { throw HarnessError("apply: \(response.status)") }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Sets the app's webhook URL and returns the signing secret shown in the answer.
    func configureWebhook(_ url: String) async throws -> String {
        let response = try await putSettings(#"{"webhook_url": "\#(url)"}"#)
        guard response.status == .ok, let secret = try json(response)["webhook_secret"] as? String else {
            throw HarnessError("settings answered \(response.status): \(String(buffer: response.body))")
        }
        return secret
    }

    /// The app's event ids, newest first.
    func eventIDs(user: String? = nil, limit: Int = 50) async throws -> [String] {
        let path = "/v1/admin/events?limit=\(limit)" + (user.map { "&app_user_id=\($0)" } ?? "")
        let response = try await send(.get, path)
        guard response.status == .ok else { throw HarnessError("events answered \(response.status)") }
        let events = try json(response)["events"] as? [[String: Any]] ?? []
        return events.compactMap { $0["id"] as? String }
    }

    /// The state of an event's delivery (`nil` when it has none).
    func deliveryState(_ id: String) async throws -> String? {
        let event = try json(try await send(.get, "/v1/admin/events/\(id)"))
        return (event["delivery"] as? [String: Any])?["state"] as? String
    }
}
