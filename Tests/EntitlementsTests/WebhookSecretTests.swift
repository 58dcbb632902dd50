import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Webhook secrets at rest (issue 22: webhook signing secrets are stored in plaintext)")
struct WebhookSecretTests {
    /// The app's settings row as JSON text: every column, whatever its name.
    static func settingsRow(appID: String, database: DatabaseSettings) async throws -> String {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT row_to_json(s)::text FROM entitlements.app_settings s WHERE app_id = \(appID)")
            for try await text in rows.decode(String.self) { return text }
            throw HarnessError("no settings row for \(appID)")
        }
    }

    /// The app's webhook endpoints' rows as JSON text: every column, whatever its name.
    static func endpointRows(appID: String, database: DatabaseSettings) async throws -> String {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                "SELECT json_agg(p)::text FROM entitlements.webhook_endpoints p WHERE app_id = \(appID)")
            for try await text in rows.decode(String?.self) { return text ?? "" }
            return ""
        }
    }

    @Test("A created or rotated secret is stored sealed: no column holds it, and deliveries are signed with it")
    func sealedAtRest() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await WebhookTests.run { harness in
                let first = try await harness.configureWebhook(receiver.url)
                var row = try await Self.settingsRow(appID: harness.appID, database: harness.database)
                var endpoints = try await Self.endpointRows(appID: harness.appID, database: harness.database)
                #expect(!row.contains(first) && !endpoints.contains(first))
                #expect(endpoints.contains("\"secret_sealed\":\"\\\\x"), "\(endpoints)")

                let rotated = try await harness.send(.post, "/v1/admin/entitlements/webhook-secret")
                let second = try #require(try harness.json(rotated)["webhook_secret"] as? String)
                row = try await Self.settingsRow(appID: harness.appID, database: harness.database)
                endpoints = try await Self.endpointRows(appID: harness.appID, database: harness.database)
                #expect(!row.contains(second) && !row.contains(first))
                #expect(!endpoints.contains(second) && !endpoints.contains(first))

                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("delivered") { try await harness.deliveryState(id) == "delivered" }
                try WebhookTests.verify(try #require(await receiver.requests(for: id).last), secret: second)
            }
        }
    }

    @Test("An upgrade seals the plaintext secrets an earlier release stored, which keep signing; none can be written")
    func upgradeSealsPlaintext() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await TestDatabase.withFreshDatabase { database in
                let appID = TestEnvironment.uniqueAppID()
                let legacy = "whsec_" + String(repeating: "L", count: 32)
                // The schema as the release before sealing left it, with a plaintext secret in it.
                let earlier = EntitlementsMigrations.all.prefix { $0.name != "0014_sealed_webhook_secrets" }
                #expect(earlier.count < EntitlementsMigrations.all.count)
                try await TestDatabase.withClient(database) { client in
                    try await MigrationRunner(schema: "entitlements", migrations: Array(earlier))
                        .run(client: client, logger: Logger(label: "test-migrations"))
                    try await client.query(
                        """
                        INSERT INTO entitlements.app_settings (app_id, webhook_url, webhook_secret)
                        VALUES (\(appID), \(receiver.url), \(legacy))
                        """)
                }

                var environment = WebhookTests.fast
                environment["DATABASE_URL"] = database.url
                try await EntitlementsHarness.run(appID: appID, environment: environment) { harness in
                    try await eventually("the plaintext is sealed") {
                        !(try await Self.settingsRow(appID: appID, database: database).contains(legacy))
                    }
                    #expect(!(try await Self.endpointRows(appID: appID, database: database).contains(legacy)))
                    _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                    let id = try #require(try await harness.eventIDs().first)
                    try await eventually("delivered") { try await harness.deliveryState(id) == "delivered" }
                    try WebhookTests.verify(try #require(await receiver.requests(for: id).last), secret: legacy)
                    // Not shown again by a later save, and not replaced by one.
                    let saved = try await harness.putSettings(#"{"webhook_url": "\#(receiver.url)"}"#)
                    #expect(try harness.json(saved)["webhook_secret"] == nil)

                    await #expect(throws: (any Error).self) {
                        try await TestDatabase.withClient(database) { client in
                            try await client.query(
                                """
                                UPDATE entitlements.app_settings SET webhook_secret_unsealed = 'whsec_plain'
                                WHERE app_id = \(appID)
                                """)
                        }
                    }
                }
            }
        }
    }
}
