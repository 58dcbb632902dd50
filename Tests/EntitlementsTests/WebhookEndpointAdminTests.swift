import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Webhook endpoints: the admin API, and the one webhook of earlier releases")
struct WebhookEndpointAdminTests {
    static let path = WebhookEndpointTests.path
    static let item = "/v1/admin/webhook-endpoints/{endpoint_id}"
    /// Production's rule: no private hosts.
    static let production = ["SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "false"]

    @Test("Create, list, show, change, rotate and delete an endpoint; the secret is shown only when created or rotated")
    func lifecycle() async throws {
        try await EntitlementsHarness.run(environment: Self.production, products: []) { harness in
            let created = try await harness.createEndpoint(["url": "https://hooks.example.invalid/a"])
            #expect(created.secret.wholeMatch(of: /whsec_[0-9A-Za-z]{32}/) != nil)

            let shown = try await harness.send(.get, "\(Self.path)/\(created.id)")
            #expect(try shown.violations(.get, Self.item) == [])
            let endpoint = try harness.json(shown)
            #expect(endpoint["secret"] == nil)
            #expect(endpoint["format"] as? String == "shopkeeper")
            #expect(endpoint["enabled"] as? Bool == true)
            #expect(endpoint["event_types"] is NSNull && endpoint["environments"] is NSNull)
            #expect(endpoint["from_settings"] as? Bool == false)

            let change =
                #"{"event_types": ["refund", "refund"], "environments": ["production"], "format": "cloudevents", "enabled": false, "description": "Finance"}"#
            let changed = try await harness.send(.put, "\(Self.path)/\(created.id)", json: Data(change.utf8))
            #expect(changed.status == .ok)
            #expect(try changed.violations(.put, Self.item) == [])
            var now = try harness.json(changed)
            #expect(now["event_types"] as? [String] == ["refund"])
            #expect(now["environments"] as? [String] == ["production"])
            #expect(now["format"] as? String == "cloudevents" && now["enabled"] as? Bool == false)
            #expect(now["url"] as? String == "https://hooks.example.invalid/a")
            // `null` widens a filter again; omitted fields are kept.
            let widen = try await harness.send(
                .put, "\(Self.path)/\(created.id)", json: Data(#"{"event_types": null}"#.utf8))
            now = try harness.json(widen)
            #expect(now["event_types"] is NSNull && now["environments"] as? [String] == ["production"])
            #expect(now["description"] as? String == "Finance")

            let rotated = try await harness.send(.post, "\(Self.path)/\(created.id)/secret")
            #expect(try rotated.violations(.post, "\(Self.item)/secret") == [])
            let secret = try #require(try harness.json(rotated)["secret"] as? String)
            #expect(secret != created.secret)

            let list = try await harness.send(.get, Self.path)
            #expect(try list.violations(.get, Self.path) == [])
            #expect((try harness.json(list)["endpoints"] as? [[String: Any]])?.count == 1)

            let deleted = try await harness.send(.delete, "\(Self.path)/\(created.id)")
            #expect(deleted.status == .noContent)
            for (method, path) in [
                (HTTPRequest.Method.get, "\(Self.path)/\(created.id)"), (.delete, "\(Self.path)/\(created.id)"),
                (.post, "\(Self.path)/\(created.id)/secret"), (.get, "\(Self.path)/\(created.id)/stats"),
                (.get, "\(Self.path)/not-an-id"),
            ] {
                let missing = try await harness.send(method, path)
                #expect(missing.status == .notFound, "\(method) \(path)")
                #expect(missing.problemCode == "webhook_endpoint_not_found")
            }
            #expect(try await harness.send(.get, Self.path, kind: .public).status == .forbidden)
        }
    }

    @Test(
        "Bad input is refused with 422 problem+json, every problem at once; private hosts as the settings refuse them")
    func refused() async throws {
        try await EntitlementsHarness.run(environment: Self.production, products: []) { harness in
            let cases: [(String, [String])] = [
                ("{}", ["/url"]),
                (#"{"url": "http://169.254.169.254/latest/meta-data"}"#, ["/url"]),
                (#"{"url": "http://localhost/hook"}"#, ["/url"]),
                (#"{"url": "ftp://hooks.example.invalid/x"}"#, ["/url"]),
                (
                    #"{"url": "https://hooks.example.invalid/x", "event_types": ["refund", "nope"], "environments": [], "format": "xml"}"#,
                    ["/event_types/1", "/environments", "/format"]
                ),
                (#"{"url": "https://hooks.example.invalid/x", "environments": ["xcode"]}"#, ["/environments/0"]),
                (#"{"url": "https://hooks.example.invalid/x", "description": "a\u0000b"}"#, ["/description"]),
            ]
            for (body, pointers) in cases {
                let response = try await harness.send(.post, Self.path, json: Data(body.utf8))
                #expect(response.status == .unprocessableContent, "\(body)")
                #expect(response.problemCode == "validation_failed", "\(body)")
                #expect(try response.violations(.post, Self.path) == [])
                let errors = try harness.json(response)["errors"] as? [[String: Any]] ?? []
                #expect(errors.compactMap { $0["pointer"] as? String } == pointers, "\(body)")
            }
            let unknown = try await harness.send(
                .post, Self.path, json: Data(#"{"url": "https://hooks.example.invalid/x", "secret": "mine"}"#.utf8))
            #expect((400..<500).contains(unknown.status.code))

            let created = try await harness.createEndpoint(["url": "https://hooks.example.invalid/x"])
            let badChange = try await harness.send(
                .put, "\(Self.path)/\(created.id)", json: Data(#"{"url": "http://10.0.0.1/x"}"#.utf8))
            #expect(badChange.status == .unprocessableContent)
            #expect(try badChange.violations(.put, Self.item) == [])

            // At most 16 per app.
            for index in 1..<WebhookEndpointPostgresRepository.maximumPerApp {
                _ = try await harness.createEndpoint(["url": "https://hooks.example.invalid/\(index)"])
            }
            let tooMany = try await harness.send(
                .post, Self.path, json: Data(#"{"url": "https://hooks.example.invalid/17"}"#.utf8))
            #expect(tooMany.status == .conflict)
            #expect(tooMany.problemCode == "too_many_webhook_endpoints")
            #expect(try tooMany.violations(.post, Self.path) == [])
        }
    }

    @Test("The settings' webhook_url is the app's settings endpoint: set, disabled by null, enabled again, one secret")
    func settingsEndpoint() async throws {
        try await EntitlementsHarness.run(environment: Self.production, products: []) { harness in
            let url = "https://hooks.example.invalid/settings"
            let secret = try await harness.configureWebhook(url)
            var endpoints = try harness.json(try await harness.send(.get, Self.path))["endpoints"] as? [[String: Any]]
            let endpoint = try #require(endpoints?.first)
            #expect(endpoints?.count == 1)
            #expect(endpoint["url"] as? String == url && endpoint["from_settings"] as? Bool == true)
            #expect(endpoint["enabled"] as? Bool == true)

            #expect(try await harness.putSettings(#"{"webhook_url": null}"#).status == .ok)
            #expect(try harness.json(try await harness.send(.get, SettingsTests.path))["webhook_url"] is NSNull)
            endpoints = try harness.json(try await harness.send(.get, Self.path))["endpoints"] as? [[String: Any]]
            #expect(endpoints?.first?["enabled"] as? Bool == false)

            let again = try await harness.putSettings(#"{"webhook_url": "\#(url)/2"}"#)
            #expect(try harness.json(again)["webhook_secret"] == nil, "the secret \(secret) is kept")
            #expect(try harness.json(again)["webhook_url"] as? String == "\(url)/2")
            endpoints = try harness.json(try await harness.send(.get, Self.path))["endpoints"] as? [[String: Any]]
            #expect(endpoints?.count == 1 && endpoints?.first?["enabled"] as? Bool == true)
        }
    }

    @Test(
        "An upgrade makes the one webhook of earlier releases the first endpoint: what was queued and what follows is delivered, signed as before"
    )
    func upgradeKeepsTheWebhook() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await TestDatabase.withFreshDatabase { database in
                let appID = TestEnvironment.uniqueAppID()
                var environment = WebhookTests.fast
                environment["DATABASE_URL"] = database.url
                let settings = try EntitlementsSettings.read(from: TestEnvironment.reader(environment))
                let box = WebhookSecretBox(masterKey: settings.masterKey)
                let secret = "whsec_" + String(repeating: "K", count: 32)
                let sealed = ByteBuffer(bytes: try box.seal(secret, appID: appID))
                let keyID = box.keyID
                let queued = UUID()
                // The schema as the release before endpoints left it: one webhook, and a delivery waiting.
                let earlier = EntitlementsMigrations.all.prefix { $0.name != "0039_webhook_endpoints" }
                #expect(earlier.count < EntitlementsMigrations.all.count)
                try await TestDatabase.withClient(database) { client in
                    try await MigrationRunner(schema: "entitlements", migrations: Array(earlier))
                        .run(client: client, logger: Logger(label: "test-migrations"))
                    try await client.query(
                        """
                        INSERT INTO entitlements.app_settings (app_id, webhook_url, webhook_secret_sealed,
                            webhook_secret_key_id)
                        VALUES (\(appID), \(receiver.url), \(sealed), \(keyID))
                        """)
                    try await client.query(
                        """
                        WITH event AS (
                            INSERT INTO entitlements.events (event_id, app_id, type, environment, payload)
                            VALUES (\(queued), \(appID), 'consent_rescinded', 'production', '{}'::jsonb)
                            RETURNING event_id, app_id
                        )
                        INSERT INTO entitlements.webhook_deliveries (event_id, app_id) SELECT event_id, app_id FROM event
                        """)
                }

                try await EntitlementsHarness.run(appID: appID, environment: environment) { harness in
                    let id = queued.uuidString.lowercased()
                    try await eventually("the queued event is delivered") {
                        try await harness.deliveryState(id) == "delivered"
                    }
                    try WebhookTests.verify(try #require(await receiver.requests(for: id).last), secret: secret)

                    _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                    let next = try #require(try await harness.eventIDs(user: "user-1").first)
                    try await eventually("a new event is delivered") {
                        try await harness.deliveryState(next) == "delivered"
                    }
                    try WebhookTests.verify(try #require(await receiver.requests(for: next).last), secret: secret)

                    let settings = try harness.json(try await harness.send(.get, SettingsTests.path))
                    #expect(settings["webhook_url"] as? String == receiver.url)
                    let list = try harness.json(try await harness.send(.get, Self.path))
                    let endpoints = try #require(list["endpoints"] as? [[String: Any]])
                    #expect(endpoints.count == 1 && endpoints.first?["from_settings"] as? Bool == true)
                    let event = try harness.json(try await harness.send(.get, "/v1/admin/events/\(next)"))
                    let delivery = try #require(event["delivery"] as? [String: Any])
                    #expect(delivery["endpoint_id"] as? String == endpoints.first?["id"] as? String)
                }
            }
        }
    }
}
