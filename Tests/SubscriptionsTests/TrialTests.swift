import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The app's own free trial: once per customer and once per device, seen on every device of the customer.
@Suite("Trials across devices") struct TrialTests {
    typealias F = SubscriptionFixtures

    func start(_ harness: SubscriptionsHarness, user: String, device: String, product: String? = nil) async throws
        -> TestResponse
    {
        try await harness.send(
            harness.entitlements, .post, "/v1/customers/\(user)/trial", kind: .public,
            json: try TestJSON.encode(TrialStartRequest(deviceID: device, productID: product)))
    }

    @Test("A trial starts once; a reinstall or a new account on the device cannot restart it; a second device sees it")
    func oncePerCustomerAndDevice() async throws {
        try await SubscriptionsHarness.run { harness in
            let first = try await start(harness, user: "anna", device: "phone")
            #expect(first.status == .created)
            #expect(try first.violations(.post, "/v1/customers/{app_user_id}/trial") == [])
            let trial = try TestJSON.decode(TrialInfo.self, first.body.readableBytesView)
            #expect(trial.state == .active && trial.productID == "pro_monthly")
            let ends = try #require(trial.expiresAt)
            let started = try #require(trial.startedAt)
            #expect(abs(ends.timeIntervalSince(started) - 7 * 86_400) < 2)

            // Reinstall: the same customer on the same device gets the same trial, not a new one.
            let again = try await start(harness, user: "anna", device: "phone")
            #expect(again.status == .ok)
            #expect(try TestJSON.decode(TrialInfo.self, again.body.readableBytesView) == trial)
            // A new account on the same device gets none.
            let other = try await start(harness, user: "anna-second-account", device: "phone")
            #expect(other.status == .conflict)
            #expect(other.problemCode == "trial_used_on_device")
            // Her tablet sees the same trial.
            let tablet = try await start(harness, user: "anna", device: "tablet")
            #expect(tablet.status == .ok)
            #expect(try TestJSON.decode(TrialInfo.self, tablet.body.readableBytesView) == trial)
            // ... and the tablet counts as having had a trial now.
            #expect(try await start(harness, user: "bob", device: "tablet").problemCode == "trial_used_on_device")

            // Customer info grants the product's entitlements while the trial lasts.
            let info = try await harness.info("anna")
            #expect(info.trial == trial)
            #expect(info.entitlements["pro"]?.active == true)
            #expect(info.entitlements["pro"]?.source == "trial")
            let read = try await harness.send(harness.entitlements, .get, "/v1/customers/anna/trial", kind: .public)
            #expect(try read.violations(.get, "/v1/customers/{app_user_id}/trial") == [])
            #expect(try TestJSON.decode(TrialInfo.self, read.body.readableBytesView) == trial)
            #expect(try await harness.eventTypes(until: { $0 == ["trial_started"] }) == ["trial_started"])
        }
    }

    @Test("A customer whose info was read (and stored) sees the trial at the next read, without waiting for the relay")
    func theNextReadShowsAStartedTrial() async throws {
        // The relay (which also forgets stored info) runs once at start, then not again during the test.
        try await SubscriptionsHarness.run(entitlementsEnvironment: ["SHOPKEEPER_SUBSCRIPTION_RELAY_MS": "60000"]) {
            harness in
            let pass = F.transaction(product: "pass_month", start: Date().addingTimeInterval(5), end: nil)
            _ = try await harness.apply([pass], user: "fiona", device: "phone")
            let before = try await harness.info("fiona")
            #expect(before.trial.state == .none)

            #expect(try await start(harness, user: "fiona", device: "phone").status == .created)
            let after = try await harness.info("fiona")
            #expect(after.trial.state == .active)
            #expect(after.entitlements["pro"]?.source == "trial")
        }
    }

    @Test("Twenty starts at once for one customer on twenty devices make one trial")
    func concurrentStarts() async throws {
        try await SubscriptionsHarness.run { harness in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await harness.sendAtOnce(
                            harness.entitlements, .post, "/v1/customers/carol/trial", kind: .public,
                            json: try TestJSON.encode(TrialStartRequest(deviceID: "device-\(index)", productID: nil))
                        ).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == 200 }.count == 19)
            #expect(try await harness.eventTypes(until: { $0 == ["trial_started"] }) == ["trial_started"])
        }
    }

    @Test("A purchase in the trial's group after the trial started converts it, once; another group does not")
    func conversion() async throws {
        try await SubscriptionsHarness.run { harness in
            #expect(try await start(harness, user: "dora", device: "phone").status == .created)
            #expect(try await harness.eventTypes(until: { $0 == ["trial_started"] }) == ["trial_started"])
            // A pass in another group is no conversion.
            let pass = F.transaction(product: "pass_month", start: Date().addingTimeInterval(5), end: nil)
            _ = try await harness.apply([pass], user: "dora", device: "phone")
            // The yearly plan is in the trial's group ("pro"): converted, once, even when applied again or renewed.
            let yearly = F.transaction(
                product: "pro_yearly", start: Date().addingTimeInterval(10),
                end: Date().addingTimeInterval(365 * 86_400))
            _ = try await harness.apply([yearly], user: "dora", device: "phone")
            _ = try await harness.apply([yearly], user: "dora", device: "tablet")
            let renewal = F.transaction(
                product: "pro_yearly", original: yearly.originalTransactionID, start: Date().addingTimeInterval(20),
                end: Date().addingTimeInterval(730 * 86_400))
            _ = try await harness.apply([renewal], user: "dora", device: "phone")
            let types = try await harness.eventTypes(until: { $0.contains("subscription_started") })
            #expect(types.filter { $0 == "trial_converted" }.count == 1, "\(types)")
            #expect(types.firstIndex(of: "trial_started") ?? .max < types.firstIndex(of: "trial_converted") ?? -1)

            // A customer without a trial converts nothing.
            let other = F.transaction(product: "pro_monthly", start: Date().addingTimeInterval(10))
            _ = try await harness.apply([other], user: "erik", device: "laptop")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.eventTypes().filter { $0 == "trial_converted" }.count == 1)
        }
    }

    @Test("Eligibility counts the app's trial and store trials per customer across stores, and the device")
    func eligibility() async throws {
        try await SubscriptionsHarness.run { harness in
            func eligibility(_ user: String, _ product: String, device: String? = nil) async throws -> EligibilityInfo {
                let query = "product_id=\(product)" + (device.map { "&device_id=\($0)" } ?? "")
                let response = try await harness.send(
                    harness.entitlements, .get, "/v1/customers/\(user)/eligibility?\(query)", kind: .public)
                #expect(try response.violations(.get, "/v1/customers/{app_user_id}/eligibility") == [])
                return try TestJSON.decode(EligibilityInfo.self, response.body.readableBytesView)
            }
            // A new user, never seen: eligible.
            #expect(try await eligibility("new-user", "pro_yearly").eligible)
            // A store free trial in the group (bought on the App Store) counts for every product of the group.
            let storeTrial = F.transaction(offer: StoreOffer(type: "introductory", discountType: "free_trial"))
            _ = try await harness.apply([storeTrial], user: "dave")
            let dave = try await eligibility("dave", "pro_yearly")
            #expect(!dave.eligible && dave.reason == .introOfferUsed)
            // Nor can that customer start the app's trial of the group.
            let refused = try await start(harness, user: "dave", device: "dave-phone")
            #expect(refused.problemCode == "trial_already_used")
            // The app's own trial counts too, and so does its device for another account.
            _ = try await start(harness, user: "erin", device: "erin-phone")
            #expect(try await eligibility("erin", "pro_yearly").reason == .trialUsed)
            #expect(try await eligibility("frank", "pro_yearly", device: "erin-phone").reason == .deviceUsedTrial)
            // Not a subscription; unknown product.
            #expect(try await eligibility("frank", "garden").reason == .notASubscription)
            let unknown = try await harness.send(
                harness.entitlements, .get, "/v1/customers/frank/eligibility?product_id=nope", kind: .public)
            #expect(unknown.status == .notFound && unknown.problemCode == "product_not_found")
            let missing = try await harness.send(
                harness.entitlements, .get, "/v1/customers/frank/eligibility", kind: .public)
            #expect(missing.status == .badRequest)
        }
    }

    @Test("Bad trial requests are 4xx problems with nothing started")
    func badInput() async throws {
        try await SubscriptionsHarness.run(
            products: [F.product("pro_yearly", type: .autoRenewable, group: "pro")]
        ) { harness in
            #expect(try await start(harness, user: "gina", device: "").status == .unprocessableContent)
            #expect(try await start(harness, user: "gina", device: "phone").problemCode == "no_trial")
            #expect(
                try await start(harness, user: "gina", device: "phone", product: "nope").problemCode
                    == "product_not_found")
            let malformed = try await harness.send(
                harness.entitlements, .post, "/v1/customers/gina/trial", kind: .public, json: Data("{".utf8))
            #expect(malformed.status == .badRequest)
            let read = try await harness.send(harness.entitlements, .get, "/v1/customers/gina/trial", kind: .public)
            #expect(try TestJSON.decode(TrialInfo.self, read.body.readableBytesView).state == .none)
        }
    }
}
