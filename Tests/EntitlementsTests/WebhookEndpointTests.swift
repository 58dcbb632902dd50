import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Webhook endpoints (issue 40: several endpoints per app, filters, CloudEvents)")
struct WebhookEndpointTests {
    static let path = "/v1/admin/webhook-endpoints"

    @Test("Two endpoints with different filters receive exactly their events, once each, over real HTTP")
    func filteredFanOut() async throws {
        try await WebhookReceiver.run(.always(.ok)) { purchases in
            try await WebhookReceiver.run(.always(.ok)) { everything in
                try await WebhookTests.run(replicas: 2) { harness in
                    // Sandbox purchases of non-consumables, as Shopkeeper events; every purchase, as CloudEvents;
                    // and a disabled endpoint that would take everything.
                    let sandbox = try await harness.createEndpoint([
                        "url": purchases.url, "event_types": ["initial_purchase"], "environments": ["sandbox"],
                    ])
                    let cloud = try await harness.createEndpoint([
                        "url": everything.url, "event_types": ["initial_purchase", "consumable_purchase"],
                        "format": "cloudevents", "description": "Every purchase",
                    ])
                    _ = try await harness.createEndpoint(["url": purchases.url, "enabled": false])

                    _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")], user: "u-1")
                    _ = try await harness.applied(
                        [EntitlementsFixtures.transaction(product: "garden", environment: .production)], user: "u-2")
                    _ = try await harness.applied([EntitlementsFixtures.transaction(product: "seeds")], user: "u-3")
                    #expect(try await harness.link("u-3-alt", to: "u-3").status == .ok)
                    // A burst through both replicas at once: each of its events reaches each endpoint once.
                    try await harness.applyGardensAtOnce(16, userPrefix: "burst")

                    // What each endpoint should get, by the filters' rules written again here.
                    let events = try await harness.allEvents()
                    let toSandbox = Set(
                        events.filter { $0.type == "initial_purchase" && $0.environment != "production" }.map(\.id))
                    let toCloud = Set(
                        events.filter { ["initial_purchase", "consumable_purchase"].contains($0.type) }.map(\.id))
                    #expect(toSandbox.count == 17 && toCloud.count == 19, "\(events)")
                    // The alias event matches neither filter: no delivery at all.
                    #expect(events.contains { $0.type == "alias" && !toCloud.contains($0.id) }, "\(events)")

                    try await eventually(timeout: .seconds(30), "every delivery is made") {
                        try await harness.allEvents().allSatisfy { event in
                            event.deliveries.allSatisfy { $0.state == "delivered" }
                                && event.deliveries.count
                                    == (toSandbox.contains(event.id) ? 1 : 0) + (toCloud.contains(event.id) ? 1 : 0)
                        }
                    }
                    try await Task.sleep(for: .milliseconds(300))
                    for event in try await harness.allEvents() {
                        var expected: Set<String> = []
                        if toSandbox.contains(event.id) { expected.insert(sandbox.id) }
                        if toCloud.contains(event.id) { expected.insert(cloud.id) }
                        #expect(Set(event.deliveries.map(\.endpointID)) == expected, "\(event)")
                    }

                    let sandboxCounts = Self.counts(await purchases.requests)
                    let cloudCounts = Self.counts(await everything.requests)
                    #expect(Set(sandboxCounts.keys) == toSandbox)
                    #expect(sandboxCounts.values.allSatisfy { $0 == 1 }, "\(sandboxCounts)")
                    #expect(Set(cloudCounts.keys) == toCloud)
                    #expect(cloudCounts.values.allSatisfy { $0 == 1 }, "\(cloudCounts)")

                    for request in await purchases.requests {
                        try WebhookTests.verify(request, secret: sandbox.secret)
                        #expect(request.headers[.contentType] == "application/json")
                        let body = try TestJSON.object(request.body)
                        #expect(body["id"] as? String == request.eventID)
                    }
                    try await Self.checkCloudEvents(
                        await everything.requests, events: events, secret: cloud.secret, appID: harness.appID)

                    // Per-endpoint figures.
                    let stats = try await harness.send(.get, "\(Self.path)/\(sandbox.id)/stats")
                    #expect(try stats.violations(.get, "\(Self.path)/{endpoint_id}/stats") == [])
                    let figures = try harness.json(stats)
                    #expect(figures["delivered"] as? Int == toSandbox.count)
                    #expect(figures["pending"] as? Int == 0 && figures["dead"] as? Int == 0)
                    #expect(figures["failing"] as? Int == 0)
                    #expect(figures["last_status"] as? Int == 200)
                    #expect(figures["last_attempt_at"] is String)

                    // A replay to one endpoint reaches that endpoint only.
                    let first = try #require(toSandbox.first)
                    let replay = try await harness.send(
                        .post, "/v1/admin/events/\(first)/replay?endpoint_id=\(cloud.id)")
                    #expect(replay.status == .accepted)
                    try await eventually("the replay is delivered") {
                        await everything.requests(for: first).count == 2
                    }
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(await purchases.requests(for: first).count == 1)
                }
            }
        }
    }

    /// Each request's body is a CloudEvent the spec's JSON schema accepts (Tests/Oracles/validate_cloudevents.py,
    /// Python's jsonschema with format checks), whose attributes name the event and whose `data` is the event.
    static func checkCloudEvents(
        _ requests: [WebhookReceiver.Received], events: [ListedEvent], secret: String, appID: String
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudevents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, request) in requests.enumerated() {
            try WebhookTests.verify(request, secret: secret)
            #expect(request.headers[.contentType] == "application/cloudevents+json; charset=utf-8")
            let body = try TestJSON.object(request.body)
            let event = try #require(events.first { $0.id == request.eventID })
            #expect(body["specversion"] as? String == "1.0")
            #expect(body["id"] as? String == event.id)
            #expect(body["source"] as? String == "/apps/\(appID)")
            #expect(body["type"] as? String == "dev.shopkeeper.\(event.type)")
            #expect(body["datacontenttype"] as? String == "application/json")
            #expect(body["subject"] as? String == event.appUserID)
            let data = try #require(body["data"] as? [String: Any])
            #expect(data["id"] as? String == event.id && data["type"] as? String == event.type)
            #expect(body["time"] as? String == data["created_at"] as? String)
            let file = folder.appendingPathComponent("\(index).json")
            try request.body.write(to: file)
            files.append(file.path)
        }
        let (status, output) = try await Self.python(["Tests/Oracles/validate_cloudevents.py"] + files)
        #expect(status == 0, "the CloudEvents schema refuses: \(output)")
    }

    /// Runs `python3` with `arguments` from the package's root; its exit status and output.
    static func python(_ arguments: [String]) async throws -> (Int32, String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = try pipe.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static func counts(_ requests: [WebhookReceiver.Received]) -> [String: Int] {
        Dictionary(grouping: requests.compactMap(\.eventID)) { $0 }.mapValues(\.count)
    }
}

/// An event as `GET /v1/admin/events` lists it, with its deliveries.
struct ListedEvent: Sendable, CustomStringConvertible {
    var id: String
    var type: String
    var environment: String?
    var appUserID: String?
    var deliveries: [(endpointID: String, state: String)]

    var description: String { "\(type) \(environment ?? "-") \(id) \(deliveries)" }
}

/// An endpoint as created: its id and its secret.
struct CreatedEndpoint: Sendable {
    var id: String
    var secret: String
}

extension EntitlementsHarness {
    /// `POST /v1/admin/webhook-endpoints` with `fields`, requiring 201 and a body the API document allows.
    func createEndpoint(_ fields: [String: Any]) async throws -> CreatedEndpoint {
        let body = try JSONSerialization.data(withJSONObject: fields)
        let response = try await send(.post, WebhookEndpointTests.path, json: body)
        guard response.status == .created else {
            throw HarnessError("create endpoint answered \(response.status): \(String(buffer: response.body))")
        }
        #expect(try response.violations(.post, WebhookEndpointTests.path) == [])
        let created = try json(response)
        guard let id = created["id"] as? String, let secret = created["secret"] as? String else {
            throw HarnessError("no id or secret in \(created)")
        }
        return CreatedEndpoint(id: id, secret: secret)
    }

    /// Every event of the app (up to 200), newest first, checked against the API document.
    func allEvents() async throws -> [ListedEvent] {
        let response = try await send(.get, "/v1/admin/events?limit=200")
        #expect(try response.violations(.get, "/v1/admin/events") == [])
        let events = try json(response)["events"] as? [[String: Any]] ?? []
        return events.map { event in
            let deliveries = (event["deliveries"] as? [[String: Any]] ?? []).map {
                (endpointID: $0["endpoint_id"] as? String ?? "", state: $0["state"] as? String ?? "")
            }
            return ListedEvent(
                id: event["id"] as? String ?? "", type: event["type"] as? String ?? "",
                environment: event["environment"] as? String, appUserID: event["app_user_id"] as? String,
                deliveries: deliveries)
        }
    }
}
