import Foundation
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("Webhook fairness (issue 22: one tenant's failing webhook delays every tenant)")
struct WebhookFairnessTests {
    /// Fair or not is told apart by a condition, not a clock: the hanging receiver holds its attempts for the whole
    /// test (their timeout, 60 s, the most there is, is longer than any wait here), so another app's deliveries either
    /// arrive while those attempts still hang, or, if the hanging app could starve the others, not until they time
    /// out. The delivery
    /// latencies are printed (p99 about 0.2 to 2 s here, with the machine loaded).
    @Test("While one app's receiver hangs, another app's deliveries arrive, on two replicas")
    func hangingReceiverDelaysNoOtherApp() async throws {
        let perApp = 3
        // Longer than the test: the hanging receiver holds its attempts to the end, when it is released.
        let environment = [
            "SHOPKEEPER_WEBHOOK_TIMEOUT_SECONDS": "60", "SHOPKEEPER_WEBHOOK_POLL_MS": "100",
            "SHOPKEEPER_WEBHOOK_CONCURRENCY": "16", "SHOPKEEPER_WEBHOOK_CONCURRENCY_PER_APP": "\(perApp)",
        ]
        try await WebhookReceiver.run(.hang) { hanging in
            try await WebhookReceiver.run(.always(.ok)) { healthy in
                try await WebhookTests.run(replicas: 2, environment: environment) { slowApp in
                    let fastApp = try await slowApp.otherApp()
                    _ = try await slowApp.configureWebhook(hanging.url)
                    _ = try await fastApp.configureWebhook(healthy.url)
                    // A backlog for the hanging receiver: more than a replica's whole concurrency.
                    try await slowApp.applyGardensAtOnce(40, userPrefix: "slow")
                    try await eventually("the hanging receiver holds its share of attempts") {
                        await hanging.open >= perApp
                    }

                    var applied: [String: ContinuousClock.Instant] = [:]
                    for index in 0..<30 {
                        let user = "fast-\(index)"
                        let start = ContinuousClock.now
                        _ = try await fastApp.applied(
                            [EntitlementsFixtures.transaction(product: "garden")], user: user)
                        let id = try #require(try await fastApp.eventIDs(user: user).first)
                        applied[id] = start
                    }
                    try await eventually(timeout: .seconds(40), "every fast delivery arrives") {
                        Set(await healthy.requests.compactMap(\.eventID)).isSuperset(of: applied.keys)
                    }
                    // ... while the hanging app's attempts still hang: they never held the other app's deliveries.
                    #expect(await hanging.open >= perApp)

                    let arrivals = await healthy.requests
                    var latencies: [Duration] = []
                    for (id, start) in applied {
                        let first = try #require(arrivals.first { $0.eventID == id })
                        latencies.append(first.at - start)
                    }
                    latencies.sort()
                    let p99 = latencies[
                        min(latencies.count - 1, Int((Double(latencies.count) * 0.99).rounded(.up)) - 1)]
                    let p50 = latencies[latencies.count / 2]
                    print(
                        "webhook fairness: other app's delivery latency p50 \(p50), p99 \(p99), max \(latencies.last!)")
                    // The hanging app never had more than its share in flight, across both replicas.
                    #expect(await hanging.mostOpen <= perApp)
                    await hanging.release()
                }
            }
        }
    }
}
