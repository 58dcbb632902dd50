import Foundation
import ShopkeeperModels
import Testing

@testable import Subscriptions

/// The state machine, table-driven from the stores' documented transitions (App Store Server Notifications V2
/// and Play's subscription states): facts in, state and events out.
struct SubscriptionTimelineTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let month: TimeInterval = 30 * 86_400

    static func period(
        _ id: String, _ index: Double, product: String = "pro_monthly", type: SubscriptionPeriodType = .normal,
        revokedAfter: TimeInterval? = nil, kind: SubscriptionFacts.RevocationKind = .refunded
    ) -> SubscriptionFacts.Period {
        let starts = start.addingTimeInterval(index * month)
        return SubscriptionFacts.Period(
            transactionID: id, productID: product, storeProductID: "com.test.\(product)", periodType: type,
            startsAt: starts, endsAt: starts.addingTimeInterval(month),
            revokedAt: revokedAfter.map { starts.addingTimeInterval($0) },
            revocationKind: revokedAfter == nil ? nil : kind)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var periods: [SubscriptionFacts.Period]
        var renewal = SubscriptionFacts.Renewal()
        /// Seconds after the start of the subscription.
        var at: TimeInterval
        var state: SubscriptionState
        var access: Bool
        var testDescription: String { name }
    }

    static let renewalObserved = start.addingTimeInterval(month + 60)

    static let cases: [Case] = [
        Case(name: "inside the first paid period", periods: [period("1", 0)], at: 86_400, state: .active, access: true),
        Case(
            name: "inside a free-trial period", periods: [period("1", 0, type: .trial)], at: 86_400, state: .trial,
            access: true),
        Case(
            name: "an intro period is active", periods: [period("1", 0, type: .intro)], at: 86_400, state: .active,
            access: true),
        Case(name: "ended with no news", periods: [period("1", 0)], at: month + 1, state: .expired, access: false),
        Case(
            name: "renewed: the latest period governs", periods: [period("1", 0), period("2", 1)], at: month + 10,
            state: .active, access: true),
        Case(
            name: "billing failed with a grace period: still in service",
            periods: [period("1", 0)],
            renewal: .init(
                observedAt: renewalObserved, willRenew: true,
                graceExpiresAt: start.addingTimeInterval(month + 6 * 86_400),
                billingRetry: true),
            at: month + 86_400, state: .gracePeriod, access: true),
        Case(
            name: "grace period over, store still retrying",
            periods: [period("1", 0)],
            renewal: .init(
                observedAt: renewalObserved, willRenew: true,
                graceExpiresAt: start.addingTimeInterval(month + 6 * 86_400),
                billingRetry: true),
            at: month + 7 * 86_400, state: .billingRetry, access: false),
        Case(
            name: "billing failed without a grace period",
            periods: [period("1", 0)], renewal: .init(observedAt: renewalObserved, willRenew: true, billingRetry: true),
            at: month + 86_400, state: .billingRetry, access: false),
        Case(
            name: "recovered: a new period after the billing trouble",
            periods: [period("1", 0), period("2", 1.5)],
            renewal: .init(observedAt: renewalObserved, willRenew: true, billingRetry: true),
            at: 1.6 * month, state: .active, access: true),
        Case(
            name: "refund of the current period ends access at once", periods: [period("1", 0, revokedAfter: 86_400)],
            at: 2 * 86_400, state: .refunded, access: false),
        Case(
            name: "Family Sharing revoked", periods: [period("1", 0, revokedAfter: 86_400, kind: .revoked)],
            at: 2 * 86_400, state: .revoked, access: false),
        Case(
            name: "a refund of an earlier period leaves the current one",
            periods: [period("1", 0, revokedAfter: 86_400), period("2", 1)], at: month + 10, state: .active,
            access: true),
        Case(
            name: "Play pause after the period",
            periods: [period("1", 0)], renewal: .init(observedAt: renewalObserved, paused: true), at: month + 86_400,
            state: .paused, access: false),
        Case(
            name: "the store's status says the period is over before its end: the store rules",
            periods: [period("1", 0)],
            renewal: .init(
                observedAt: start.addingTimeInterval(0.5 * month), willRenew: true,
                endedAt: start.addingTimeInterval(0.5 * month)),
            at: 0.6 * month, state: .expired, access: false),
        Case(
            name: "upgrade: the newer transaction's product governs",
            periods: [period("1", 0), period("2", 0.5, product: "pro_yearly")], at: 0.6 * month, state: .active,
            access: true),
    ]

    @Test(arguments: cases) func state(_ example: Case) throws {
        let facts = SubscriptionFacts(periods: example.periods, renewal: example.renewal)
        let status = try #require(
            SubscriptionTimeline.status(of: facts, at: Self.start.addingTimeInterval(example.at)))
        #expect(status.state == example.state)
        #expect(status.state.grantsAccess == example.access)
        #expect((status.accessUntil > Self.start.addingTimeInterval(example.at)) == example.access)
    }

    @Test func theLatestPeriodsProductAndEndGovern() throws {
        let facts = SubscriptionFacts(
            periods: [Self.period("1", 0), Self.period("2", 0.5, product: "pro_yearly")], renewal: .init())
        let status = try #require(SubscriptionTimeline.status(of: facts, at: Self.start))
        #expect(status.productID == "pro_yearly")
        #expect(status.expiresAt == Self.start.addingTimeInterval(1.5 * Self.month))
        #expect(status.startedAt == Self.start)
    }

    @Test func olderRenewalFactsNeverMoveItBackwards() {
        var facts = SubscriptionFacts(periods: [Self.period("1", 0)], renewal: .init())
        let newer = SubscriptionRenewalFacts(
            store: .appStore, originalTransactionID: "1", observedAt: Self.start.addingTimeInterval(100),
            willRenew: false)
        let older = SubscriptionRenewalFacts(
            store: .appStore, originalTransactionID: "1", observedAt: Self.start.addingTimeInterval(50),
            willRenew: true)
        let tookNewer = facts.record(newer)
        let tookOlder = facts.record(older)
        #expect(tookNewer)
        #expect(!tookOlder)
        #expect(facts.renewal.willRenew == false)
    }

    @Test func aRevocationOnceKnownStays() {
        var facts = SubscriptionFacts(periods: [Self.period("1", 0, revokedAfter: 10)], renewal: .init())
        facts.record(Self.period("1", 0))
        #expect(facts.periods.first?.revokedAt != nil)
    }

    @Test func onlyTheStoresReversalLiftsARevocationAndALateRefundCannotUndoIt() throws {
        let refunded = Self.period("1", 0, revokedAfter: 10)
        let revokedAt = try #require(refunded.revokedAt)
        var reversal = Self.period("1", 0)
        reversal.revocationReversedAt = revokedAt.addingTimeInterval(60)

        var facts = SubscriptionFacts(periods: [refunded], renewal: .init())
        facts.record(reversal)
        #expect(facts.periods.first?.revokedAt == nil)
        #expect(facts.periods.first?.revocationKind == nil)
        #expect(SubscriptionTimeline.status(of: facts, at: revokedAt.addingTimeInterval(120))?.state == .active)

        // The refund's notification again (a retry, or delivered after the reversal): nothing moves back.
        facts.record(refunded)
        #expect(facts.periods.first?.revokedAt == nil)
        #expect(facts.periods.first?.revocationReversedAt == reversal.revocationReversedAt)

        // A reversal first, then the refund it reversed: the refund never takes hold.
        var early = SubscriptionFacts(periods: [Self.period("1", 0)], renewal: .init())
        early.record(reversal)
        early.record(refunded)
        #expect(early.periods.first?.revokedAt == nil)

        // A refund dated after the reversal is news.
        let later = Self.period("1", 0, revokedAfter: 3_600)
        facts.record(later)
        #expect(facts.periods.first?.revokedAt == later.revokedAt)
        #expect(SubscriptionTimeline.status(of: facts, at: revokedAt.addingTimeInterval(7_200))?.state == .refunded)
    }

    struct EventCase: CustomTestStringConvertible, Sendable {
        var name: String
        var before: [SubscriptionFacts.Period]
        var beforeRenewal = SubscriptionFacts.Renewal()
        var after: [SubscriptionFacts.Period]
        var afterRenewal = SubscriptionFacts.Renewal()
        var at: TimeInterval
        var events: [EventType]
        var testDescription: String { name }
    }

    static let eventCases: [EventCase] = [
        EventCase(name: "first purchase", before: [], after: [period("1", 0)], at: 10, events: [.subscriptionStarted]),
        EventCase(
            name: "first purchase with a free trial", before: [], after: [period("1", 0, type: .trial)], at: 10,
            events: [.trialStarted]),
        EventCase(
            name: "renewal", before: [period("1", 0)], after: [period("1", 0), period("2", 1)], at: month + 10,
            events: [.renewal]),
        EventCase(
            name: "trial converts", before: [period("1", 0, type: .trial)],
            after: [period("1", 0, type: .trial), period("2", 1)], at: month + 10, events: [.trialConverted]),
        EventCase(
            name: "upgrade", before: [period("1", 0)],
            after: [period("1", 0), period("2", 0.5, product: "pro_yearly")],
            at: 0.6 * month, events: [.productChange]),
        EventCase(
            name: "auto-renew off", before: [period("1", 0)], beforeRenewal: .init(observedAt: start, willRenew: true),
            after: [period("1", 0)], afterRenewal: .init(observedAt: start.addingTimeInterval(5), willRenew: false),
            at: 10, events: [.cancellation]),
        EventCase(
            name: "auto-renew back on", before: [period("1", 0)],
            beforeRenewal: .init(observedAt: start, willRenew: false), after: [period("1", 0)],
            afterRenewal: .init(observedAt: start.addingTimeInterval(5), willRenew: true), at: 10,
            events: [.uncancellation]),
        EventCase(
            name: "billing fails into grace", before: [period("1", 0)],
            beforeRenewal: .init(observedAt: start, willRenew: true), after: [period("1", 0)],
            afterRenewal: .init(
                observedAt: renewalObserved, willRenew: true,
                graceExpiresAt: start.addingTimeInterval(month + 6 * 86_400), billingRetry: true),
            at: month + 120, events: [.billingIssue, .gracePeriodStarted]),
        EventCase(
            name: "expiry", before: [period("1", 0)], after: [period("1", 0)], at: month + 10, events: [.expiration]),
        EventCase(
            name: "trial ends unconverted", before: [period("1", 0, type: .trial)],
            after: [period("1", 0, type: .trial)], at: month + 10, events: [.trialExpired]),
    ]

    @Test(arguments: eventCases) func events(_ example: EventCase) throws {
        let early = Self.start.addingTimeInterval(1)
        let before = SubscriptionTimeline.status(
            of: SubscriptionFacts(periods: example.before, renewal: example.beforeRenewal), at: early)
        let after = try #require(
            SubscriptionTimeline.status(
                of: SubscriptionFacts(periods: example.after, renewal: example.afterRenewal),
                at: Self.start.addingTimeInterval(example.at)))
        #expect(SubscriptionChange.events(from: before, to: after) == example.events)
    }
}
