import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// `POST /internal/v1/app-events`: app-level facts (no customer) become events once per key, reach the webhook, and
/// stay out of customer histories and customer-scoped listings.
@Suite("App-level events")
struct AppEventTests {
    func publish(_ harness: EntitlementsHarness, _ events: [AppEvent]) async throws -> any HTTPAnswer {
        try await harness.send(
            .post, "/internal/v1/app-events", json: try TestJSON.encode(AppEventsRequest(events: events)))
    }

    @Test("Published once per key, delivered to the webhook with no app_user_id, absent from customer histories")
    func publishedOnceAndDelivered() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await WebhookTests.run { harness in
                _ = try await harness.configureWebhook(receiver.url)
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let created = Date(timeIntervalSince1970: 1_790_000_000)
                let token = AppEvent(
                    kind: .externalPurchaseToken, key: "app_store:n-1", store: .appStore, environment: .production,
                    externalPurchaseID: "ext-1", tokenCreationDate: created, subtype: "UNREPORTED")
                let consent = AppEvent(
                    kind: .consentRescinded, key: "app_store:n-2", store: .appStore, environment: .sandbox,
                    appTransactionID: "704")
                let first = try await publish(harness, [token, consent])
                #expect(first.status == .ok, "\(String(buffer: first.body))")
                #expect(try first.decode(AppEventsResponse.self).published == 2)
                // Again, and at once from several callers: nothing new.
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<6 {
                        group.addTask {
                            let again = try await harness.send(
                                .post, "/internal/v1/app-events",
                                json: try TestJSON.encode(AppEventsRequest(events: [token, consent])), atOnce: true)
                            return try again.decode(AppEventsResponse.self).published
                        }
                    }
                    for try await published in group { #expect(published == 0) }
                }
                let ids = try await harness.eventIDs()
                #expect(ids.count == 3)
                let listed = try await harness.send(.get, "/v1/admin/events?type=external_purchase_token")
                #expect(try listed.violations(.get, "/v1/admin/events") == [])
                let tokenEvent = try #require((try harness.json(listed)["events"] as? [[String: Any]])?.first)
                let tokenID = try #require(tokenEvent["id"] as? String)
                #expect(tokenEvent["app_user_id"] is NSNull)
                #expect(tokenEvent["environment"] as? String == "production")
                let data = try #require(tokenEvent["data"] as? [String: Any])
                #expect(data["external_purchase_id"] as? String == "ext-1")
                #expect(data["token_creation_date"] as? String == created.formatted(.iso8601))
                #expect(data["subtype"] as? String == "UNREPORTED")

                try await eventually("the app event is delivered") {
                    try await harness.deliveryState(tokenID) == "delivered"
                }
                let delivered = try #require(await receiver.requests(for: tokenID).last)
                let body = try TestJSON.object(delivered.body)
                #expect(body["type"] as? String == "external_purchase_token")
                #expect(body["app_user_id"] is NSNull)
                let value = try JSONDecoder().decode(JSONValue.self, from: delivered.body)
                let schema: [String: Any] = ["$ref": "#/components/schemas/WebhookEvent"]
                #expect(try OpenAPIDocument.load().validate(value, against: schema, at: "", closed: true) == [])

                // Customer-scoped reads never show them.
                #expect(try await harness.eventIDs(user: "user-1").count == 1)
                let history = try await harness.history("user-1")
                let events = try #require(try harness.json(history)["events"] as? [[String: Any]])
                #expect(events.allSatisfy { ($0["type"] as? String).map { !$0.contains("consent") } ?? true })
                #expect(events.count == 1)
            }
        }
    }

    @Test("An empty request or an event without a key is 422")
    func refused() async throws {
        try await EntitlementsHarness.run { harness in
            let empty = try await publish(harness, [])
            #expect(empty.status == .unprocessableContent)
            let keyless = try await publish(
                harness, [AppEvent(kind: .consentRescinded, key: "", store: .appStore, environment: .sandbox)])
            #expect(keyless.status == .unprocessableContent)
        }
    }
}
