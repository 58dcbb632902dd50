import Foundation
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Store facts through the real services: timelines, customer info and events.
@Suite("Subscription timelines") struct SubscriptionLifecycleTests {
    typealias F = SubscriptionFixtures

    @Test("Buy, renew twice, fail into grace, recover, cancel, expire: state and events follow the store's facts")
    func lifecycle() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = Date()
            let first = F.transaction(
                start: now.addingTimeInterval(-3 * 86_400), end: now.addingTimeInterval(-2 * 86_400))
            let original = first.originalTransactionID
            var bought = try await harness.apply([first])
            #expect(bought.customer?.subscriptions.first?.state == .expired)

            // Two renewals; the second covers now.
            let second = F.transaction(
                original: original, start: now.addingTimeInterval(-2 * 86_400), end: now.addingTimeInterval(-86_400))
            let third = F.transaction(
                original: original, start: now.addingTimeInterval(-86_400), end: now.addingTimeInterval(86_400))
            bought = try await harness.apply([second, third])
            var subscription = try #require(bought.customer?.subscriptions.first)
            #expect(subscription.state == .active && subscription.active)
            #expect(subscription.expiresAt == third.expiresDate)
            #expect(bought.customer?.entitlements["pro"]?.active == true)
            #expect(bought.customer?.entitlements["pro"]?.source == "subscription")

            // The next renewal fails: the store reports billing retry with a grace period.
            let failedAt = now.addingTimeInterval(86_400 + 60)
            _ = try await harness.apply(
                [],
                renewals: [
                    SubscriptionRenewalFacts(
                        store: .appStore, originalTransactionID: original, observedAt: failedAt, willRenew: true,
                        gracePeriodExpiresDate: now.addingTimeInterval(3 * 86_400), isInBillingRetry: true)
                ])
            // (the period has not ended yet: still active, grace ahead)
            subscription = try #require(try await harness.info().subscriptions.first)
            #expect(subscription.state == .active)
            #expect(subscription.gracePeriodExpiresAt != nil)

            // Recovered: a new period; then the customer switches auto-renew off.
            let fourth = F.transaction(
                original: original, start: now.addingTimeInterval(86_400 + 120),
                end: now.addingTimeInterval(40 * 86_400))
            _ = try await harness.apply(
                [fourth],
                renewals: [
                    SubscriptionRenewalFacts(
                        store: .appStore, originalTransactionID: original,
                        observedAt: now.addingTimeInterval(86_400 + 180),
                        willRenew: false, isInBillingRetry: false, expirationReason: "voluntary")
                ])
            subscription = try #require(try await harness.info().subscriptions.first)
            #expect(subscription.state == .active)
            #expect(subscription.willRenew == false)
            #expect(subscription.expirationReason == "voluntary")
            #expect(subscription.gracePeriodExpiresAt == nil)

            let expected = ["subscription_started", "expiration", "renewal", "renewal", "cancellation"]
            #expect(try await harness.eventTypes(until: { $0 == expected }) == expected)
        }
    }

    @Test("A subscription whose period ends with no news expires on time: access ends, an expiration event follows")
    func expirySweep() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = Date()
            let short = F.transaction(start: now.addingTimeInterval(-60), end: now.addingTimeInterval(3))
            let bought = try await harness.apply([short])
            #expect(bought.customer?.entitlements["pro"]?.active == true)
            // Customer info is exact once the period ends; the stored state and the event catch up within a sweep.
            let info = try await eventually(
                { try await harness.info() },
                until: { $0.entitlements["pro"]?.active == false && $0.subscriptions.first?.state == .expired })
            // Not before the period's end (as stored: the store's milliseconds).
            let end = try #require(info.subscriptions.first?.expiresAt)
            #expect(end > now.addingTimeInterval(2) && Date() >= end, "access ended before the period did")
            #expect(info.entitlements["pro"]?.active == false)
            #expect(info.subscriptions.first?.state == .expired)
            let types = try await harness.eventTypes(until: { $0.contains("expiration") })
            #expect(types == ["subscription_started", "expiration"])
        }
    }

    @Test("A grace period keeps access after the period ended, until the grace ends")
    func gracePeriod() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = Date()
            let ended = F.transaction(start: now.addingTimeInterval(-30 * 86_400), end: now.addingTimeInterval(-3600))
            _ = try await harness.apply(
                [ended],
                renewals: [
                    SubscriptionRenewalFacts(
                        store: .appStore, originalTransactionID: ended.originalTransactionID,
                        observedAt: now.addingTimeInterval(-3000), willRenew: true,
                        gracePeriodExpiresDate: now.addingTimeInterval(86_400), isInBillingRetry: true)
                ])
            let info = try await harness.info()
            let subscription = try #require(info.subscriptions.first)
            #expect(subscription.state == .gracePeriod && subscription.active)
            #expect(info.entitlements["pro"]?.active == true)
            let types = try await harness.eventTypes(until: { $0.contains("grace_period_started") })
            #expect(types == ["subscription_started", "billing_issue", "grace_period_started"])
        }
    }

    @Test("A refund of the current period ends access at once")
    func refund() async throws {
        try await SubscriptionsHarness.run { harness in
            let bought = F.transaction()
            _ = try await harness.apply([bought])
            var refunded = bought
            refunded.revocationDate = F.whole(Date())
            refunded.revocationReason = .other
            let answer = try await harness.apply([refunded], user: nil, source: .notification)
            #expect(answer.outcomes.first?.outcome == .revoked)
            let info = try await harness.info()
            #expect(info.entitlements["pro"]?.active == false)
            let subscription = try #require(info.subscriptions.first)
            #expect(subscription.state == .refunded && !subscription.active)
            #expect(subscription.refundedAt == refunded.revocationDate)
        }
    }

    @Test("An upgrade moves the customer to the new product at once")
    func upgrade() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = Date()
            let monthly = F.transaction(
                start: now.addingTimeInterval(-86_400), end: now.addingTimeInterval(29 * 86_400))
            _ = try await harness.apply([monthly])
            let yearly = F.transaction(
                product: "pro_yearly", original: monthly.originalTransactionID, start: now.addingTimeInterval(-10),
                end: now.addingTimeInterval(365 * 86_400))
            let answer = try await harness.apply([yearly])
            let subscription = try #require(answer.customer?.subscriptions.first)
            #expect(subscription.productID == "pro_yearly")
            #expect(subscription.expiresAt == yearly.expiresDate)
            #expect(try await harness.eventTypes(until: { $0.contains("product_change") }).contains("product_change"))
        }
    }

    @Test("Renewal facts observed earlier than those applied change nothing (out-of-order delivery)")
    func outOfOrder() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = Date()
            let bought = F.transaction()
            func facts(_ seconds: TimeInterval, willRenew: Bool) -> SubscriptionRenewalFacts {
                SubscriptionRenewalFacts(
                    store: .appStore, originalTransactionID: bought.originalTransactionID,
                    observedAt: F.whole(now.addingTimeInterval(seconds)), willRenew: willRenew)
            }
            _ = try await harness.apply([bought], renewals: [facts(20, willRenew: false)])
            // The older "on" arrives late, and an older renewal transaction arrives after the newer: nothing moves.
            _ = try await harness.apply([], renewals: [facts(10, willRenew: true)])
            let info = try await harness.info()
            #expect(info.subscriptions.first?.willRenew == false)
            let types = try await harness.eventTypes(until: { $0.contains("cancellation") })
            #expect(types == ["subscription_started", "cancellation"])
        }
    }

    @Test("The same facts applied 32 times at once change the subscription once")
    func concurrentDuplicates() async throws {
        try await SubscriptionsHarness.run { harness in
            let bought = F.transaction()
            let renewal = SubscriptionRenewalFacts(
                store: .appStore, originalTransactionID: bought.originalTransactionID,
                observedAt: F.whole(Date()), willRenew: false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<32 {
                    group.addTask { _ = try await harness.apply([bought], renewals: [renewal], atOnce: true) }
                }
                try await group.waitForAll()
            }
            let relayed = try await harness.eventTypes(until: { $0.contains("cancellation") })
            #expect(relayed == ["subscription_started", "cancellation"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await harness.eventTypes() == ["subscription_started", "cancellation"])
            let info = try await harness.info()
            #expect(info.subscriptions.count == 1)
        }
    }

    @Test("A change read before anyone owns its purchase waits, then reaches the owner with nothing else happening")
    func changeBeforeItsOwner() async throws {
        try await SubscriptionsHarness.run { harness in
            let bought = F.transaction()
            // The subscriptions service hears of the purchase first (as from a store notification): the relay reads
            // its change while no customer owns the purchase, and parks it.
            let timeline = try await harness.send(
                harness.subscriptions, .post, "/internal/v1/apply",
                json: try TestJSON.encode(
                    SubscriptionApplyRequest(source: .purchase, transactions: [bought], renewals: [])))
            #expect(timeline.status == .ok)
            let appID = harness.appID
            let parked = try await eventually(
                {
                    try await TestDatabase.withClient { client in
                        try await client.query(
                            "SELECT count(*)::int FROM entitlements.parked_changes WHERE app_id = \(appID)"
                        ).collect().first?.decode(Int.self) ?? 0
                    }
                }, until: { $0 > 0 })
            #expect(parked == 1)
            // The purchase is applied; no other change follows, and the parked one still reaches its owner.
            _ = try await harness.apply([bought], user: "late-owner")
            let types = try await harness.eventTypes(
                timeout: .seconds(10), until: { $0.contains("subscription_started") })
            #expect(types == ["subscription_started"])
        }
    }

    @Test("Non-renewing purchases stack end to end, once per transaction")
    func nonRenewingStack() async throws {
        try await SubscriptionsHarness.run { harness in
            let now = F.whole(Date())
            let year = F.transaction(product: "pass_year", start: now.addingTimeInterval(-86_400), end: nil)
            let month = F.transaction(product: "pass_month", start: now.addingTimeInterval(-3600), end: nil)
            _ = try await harness.apply([year])
            _ = try await harness.apply([month])
            _ = try await harness.apply([month])  // again: counted once
            let info = try await harness.info()
            let pass = try #require(info.entitlements["pass"])
            #expect(pass.active)
            let calendar = Calendar(identifier: .gregorian)
            var utc = calendar
            utc.timeZone = TimeZone(identifier: "UTC") ?? .gmt
            let yearEnd = try #require(utc.date(byAdding: .year, value: 1, to: year.purchaseDate))
            let stacked = try #require(utc.date(byAdding: .month, value: 1, to: yearEnd))
            #expect(pass.expiresAt == stacked)
            let subscription = try #require(info.subscriptions.first { $0.type == "non_renewing" })
            #expect(subscription.expiresAt == stacked && subscription.state == .active)
        }
    }
}
