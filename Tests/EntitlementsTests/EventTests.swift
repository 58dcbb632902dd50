import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Events API")
struct EventTests {
    @Test("Events are listed newest first, filtered, paged, and only the caller's app's")
    func listing() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")])
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "user-2")

            let all = try await harness.send(.get, "/v1/admin/events")
            #expect(all.status == .ok)
            #expect(try all.violations(.get, "/v1/admin/events") == [])
            let events = try harness.json(all)["events"] as? [[String: Any]] ?? []
            #expect(
                events.compactMap { $0["type"] as? String } == [
                    "initial_purchase", "consumable_purchase", "initial_purchase",
                ])
            #expect(events.compactMap { $0["app_user_id"] as? String } == ["user-2", "user-1", "user-1"])
            #expect(events.allSatisfy { $0["delivery"] is NSNull })
            #expect(try harness.json(all)["next_before"] == nil)

            let first = try await harness.send(.get, "/v1/admin/events?limit=2")
            #expect(try first.violations(.get, "/v1/admin/events") == [])
            let next = try #require(try harness.json(first)["next_before"] as? String)
            #expect(next == events[1]["id"] as? String)
            let rest = try harness.json(try await harness.send(.get, "/v1/admin/events?limit=2&before=\(next)"))
            let oldest = try #require(events[2]["id"] as? String)
            #expect((rest["events"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [oldest])
            #expect(rest["next_before"] == nil)

            #expect(try await harness.eventIDs(user: "user-1").count == 2)
            #expect(try await harness.eventIDs(user: "nobody").isEmpty)
            let consumed = try harness.json(try await harness.send(.get, "/v1/admin/events?type=consumable_purchase"))
            #expect((consumed["events"] as? [[String: Any]])?.count == 1)

            // Another app sees none of them.
            let id = try #require(events.first?["id"] as? String)
            let other = try await harness.client.execute(
                uri: "/v1/admin/events/\(id)", method: .get,
                headers: .signed(.get, "/v1/admin/events/\(id)", appID: TestEnvironment.uniqueAppID()))
            #expect(other.status == .notFound)
            #expect(other.problemCode == "event_not_found")
        }
    }

    @Test("A new purchase is announced once, however often and however many at once present it")
    func newPurchasesAreAnnouncedOnce() async throws {
        try await EntitlementsHarness.run { harness in
            // A store purchase of each kind (the catalog's, and one it does not know), presented 5 times at once.
            let expiring = Date().addingTimeInterval(3_600)
            let purchases = [
                EntitlementsFixtures.transaction(product: "garden"),
                EntitlementsFixtures.transaction(product: "seeds"),
                EntitlementsFixtures.transaction(product: "pro_year"),
                EntitlementsFixtures.transaction(product: "unknown_thing"),
                EntitlementsFixtures.transaction(product: "pro_monthly", expires: expiring),
            ]
            for purchase in purchases {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<5 {
                        group.addTask { Int(try await harness.apply([purchase], atOnce: true).status.code) }
                    }
                    for try await status in group { #expect(status == 200) }
                }
            }
            let listed = try harness.json(try await harness.send(.get, "/v1/admin/events?limit=50"))
            let types = (listed["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            // Newest first; an auto-renewable's events are the subscriptions service's.
            #expect(types == ["initial_purchase", "non_renewing_purchase", "consumable_purchase", "initial_purchase"])
            let credited = try harness.json(
                try await harness.send(.get, "/v1/admin/events?type=consumable_purchase"))
            let payload = (credited["events"] as? [[String: Any]])?.first?["data"] as? [String: Any]
            #expect(payload?["quantity"] as? Int == 5)
            #expect(payload?["balance"] as? Int == 5)
        }
    }

    /// Queries the events page refuses, with the status and the problem code of the refusal.
    static let refusals: [(query: String, status: HTTPResponse.Status, code: String)] =
        ["limit=0", "limit=201", "limit=ten", "type=purchase", "before=nope", "before=", "before=a%00"].map {
            ($0, .badRequest, "invalid_query")
        } + [("before=\(UUID().uuidString)", .notFound, "event_not_found")]

    @Test(
        "Bad queries are 400 invalid_query; a page before an event the app does not have is 404 event_not_found",
        arguments: refusals)
    func refusedQueries(query: String, status: HTTPResponse.Status, code: String) async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let response = try await harness.send(.get, "/v1/admin/events?\(query)")
            #expect(response.status == status)
            #expect(response.problemCode == code)
            #expect(try response.violations(.get, "/v1/admin/events") == [])
        }
    }

    @Test("The document lists every event type the service writes")
    func documentedEventTypes() throws {
        let document = try OpenAPIDocument.load()
        let schemas = (document.root["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let documented = (schemas?["EventType"] as? [String: Any])?["enum"] as? [String] ?? []
        #expect(documented.sorted() == EventType.allCases.map(\.rawValue).sorted())
    }

    @Test("Unknown or malformed event ids are 404; replay without a webhook is 409; public keys get 403")
    func errors() async throws {
        try await EntitlementsHarness.run { harness in
            _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
            let id = try #require(try await harness.eventIDs().first)
            let shown = try await harness.send(.get, "/v1/admin/events/\(id)")
            #expect(shown.status == .ok)
            #expect(try shown.violations(.get, "/v1/admin/events/{event_id}") == [])
            #expect(try harness.json(shown)["delivery"] is NSNull)

            for missing in ["not-a-uuid", UUID().uuidString] {
                let get = try await harness.send(.get, "/v1/admin/events/\(missing)")
                #expect(get.status == .notFound)
                #expect(get.problemCode == "event_not_found")
                #expect(try get.violations(.get, "/v1/admin/events/{event_id}") == [])
                let replay = try await harness.send(.post, "/v1/admin/events/\(missing)/replay")
                #expect(replay.status == .notFound)
                #expect(try replay.violations(.post, "/v1/admin/events/{event_id}/replay") == [])
            }
            let replay = try await harness.send(.post, "/v1/admin/events/\(id)/replay")
            #expect(replay.status == .conflict)
            #expect(replay.problemCode == "webhook_not_configured")
            #expect(try replay.violations(.post, "/v1/admin/events/{event_id}/replay") == [])
            #expect(try await harness.deliveryState(id) == nil)

            let requests: [(HTTPRequest.Method, String, String)] = [
                (.get, "/v1/admin/events", "/v1/admin/events"),
                (.get, "/v1/admin/events/\(id)", "/v1/admin/events/{event_id}"),
                (.post, "/v1/admin/events/\(id)/replay", "/v1/admin/events/{event_id}/replay"),
            ]
            for (method, path, template) in requests {
                let response = try await harness.send(method, path, kind: .public)
                #expect(response.status == .forbidden)
                #expect(try response.violations(method, template) == [])
            }
        }
    }
}
