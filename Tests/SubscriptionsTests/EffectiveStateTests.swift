import Foundation
import Logging
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Subscriptions

/// `subscriptions.effective_state`, the SQL twin of ``SubscriptionTimeline`` that `subscriptions_v1`, entitlements'
/// customer info and the subscriptions report use, run on the test PostgreSQL for a table of cases and held equal to
/// the Swift type's answer for the same facts, at the case's time and at every edge around it (a period's start and
/// end, the store's early end, the grace period's end, the revocation: a millisecond before, exactly at, a millisecond
/// after).
///
/// Each case is asked twice: with the facts themselves, and as `subscriptions_v1` asks, with the row the writer
/// stored at an earlier moment (``SubscriptionRows``: the status then, the renewal facts as they are), so a stored
/// state that time has since moved on never decides.
@Suite struct EffectiveStateTests {
    typealias T = SubscriptionTimelineTests

    static let start = T.start
    static let month = T.month
    static let graceEnd = start.addingTimeInterval(month + 6 * 86_400)

    /// The timeline's cases, and the cases at the edges that the four places of the rule used to disagree on.
    static let cases: [T.Case] =
        T.cases + [
            T.Case(
                name: "grace period after an active period: grace_period, not the stored active",
                periods: [T.period("1", 0)],
                renewal: .init(observedAt: T.renewalObserved, willRenew: true, graceExpiresAt: graceEnd),
                at: month + 86_400, state: .gracePeriod, access: true),
            T.Case(
                name: "a pause reported during the period takes effect at its end",
                periods: [T.period("1", 0)], renewal: .init(observedAt: start.addingTimeInterval(86_400), paused: true),
                at: month, state: .paused, access: false),
            T.Case(
                name: "billing retry reported before the latest period began: expired at its end",
                periods: [T.period("1", 0), T.period("2", 1)],
                renewal: .init(observedAt: T.renewalObserved.addingTimeInterval(-120), billingRetry: true),
                at: 2 * month + 60, state: .expired, access: false),
            T.Case(
                name: "a grace period reported for an earlier period is ignored",
                periods: [T.period("1", 0), T.period("2", 1)],
                renewal: .init(
                    observedAt: start.addingTimeInterval(month - 60),
                    graceExpiresAt: start.addingTimeInterval(2 * month + 86_400),
                    billingRetry: true),
                at: 2 * month + 60, state: .expired, access: false),
            T.Case(
                name: "a grace period that ends before the period does is no grace period",
                periods: [T.period("1", 0)],
                renewal: .init(
                    observedAt: T.renewalObserved, graceExpiresAt: start.addingTimeInterval(month - 60),
                    billingRetry: true),
                at: month + 1, state: .billingRetry, access: false),
            T.Case(
                name: "cancelled at the period's end: active until then", periods: [T.period("1", 0)],
                renewal: .init(observedAt: start.addingTimeInterval(60), willRenew: false), at: month - 1,
                state: .active, access: true),
            T.Case(
                name: "cancelled at the period's end: expired from then", periods: [T.period("1", 0)],
                renewal: .init(observedAt: start.addingTimeInterval(60), willRenew: false), at: month,
                state: .expired, access: false),
            T.Case(
                name: "a trial period exactly at its end", periods: [T.period("1", 0, type: .trial)], at: month,
                state: .expired, access: false),
            T.Case(
                name: "a store end dated before the period's start does not end it",
                periods: [T.period("1", 0), T.period("2", 1)],
                renewal: .init(observedAt: T.renewalObserved, endedAt: start.addingTimeInterval(month - 10)),
                at: month + 120, state: .active, access: true),
            T.Case(
                name: "a refund reversed: active again",
                periods: [reversed(T.period("1", 0, revokedAfter: 86_400))], at: 2 * 86_400, state: .active,
                access: true),
            T.Case(
                name: "paused and in billing retry: paused", periods: [T.period("1", 0)],
                renewal: .init(
                    observedAt: T.renewalObserved, graceExpiresAt: graceEnd, billingRetry: true, paused: true),
                at: month + 86_400, state: .paused, access: false),
            T.Case(
                name: "renewal facts never observed", periods: [T.period("1", 0)],
                renewal: .init(graceExpiresAt: graceEnd, billingRetry: true, paused: true), at: month + 86_400,
                state: .expired, access: false),
        ]

    /// `period` with its revocation reversed, as ``SubscriptionFacts/record(_:)`` leaves it.
    static func reversed(_ period: SubscriptionFacts.Period) -> SubscriptionFacts.Period {
        var facts = SubscriptionFacts(periods: [period], renewal: .init())
        var reversal = period
        reversal.revokedAt = nil
        reversal.revocationKind = nil
        reversal.revocationReversedAt = period.revokedAt.map { $0.addingTimeInterval(60) }
        facts.record(reversal)
        return facts.periods[0]
    }

    /// The case's time and every edge of its facts, a millisecond either side too.
    static func moments(of example: T.Case, _ facts: SubscriptionFacts) -> [Date] {
        let edges =
            facts.periods.flatMap { [$0.startsAt, $0.endsAt, $0.revokedAt].compactMap { $0 } }
            + [facts.renewal.graceExpiresAt, facts.renewal.endedAt, facts.renewal.observedAt].compactMap { $0 }
        return [start.addingTimeInterval(example.at)]
            + edges.flatMap { [$0.addingTimeInterval(-0.001), $0, $0.addingTimeInterval(0.001)] }
    }

    @Test(arguments: cases)
    func sqlEqualsTheTimeline(_ example: T.Case) async throws {
        let facts = SubscriptionFacts(periods: example.periods, renewal: example.renewal)
        // The case's own expectation first: the table says what the rule is.
        let atCase = try #require(SubscriptionTimeline.status(of: facts, at: Self.start.addingTimeInterval(example.at)))
        #expect(atCase.state == example.state)
        #expect(atCase.state.grantsAccess == example.access)
        try await Self.withMigratedClient { client in
            for moment in Self.moments(of: example, facts) {
                let swift = try #require(SubscriptionTimeline.status(of: facts, at: moment))
                let fromFacts = try await Self.effectiveState(Arguments(facts: facts, at: moment), client: client)
                #expect(fromFacts == swift.state, "facts at \(moment.timeIntervalSince(Self.start))")
                #expect(
                    try await Self.grantsAccess(fromFacts, client: client) == swift.state.grantsAccess,
                    "access at \(moment.timeIntervalSince(Self.start))")
                // As the view asks: the row as written at the period's start, or at this very moment.
                let current = try #require(facts.current)
                for written in [current.startsAt, moment] {
                    let stored = try #require(SubscriptionTimeline.status(of: facts, at: written))
                    let fromRow = try await Self.effectiveState(
                        Arguments(stored: stored, renewal: facts.renewal, at: moment), client: client)
                    #expect(
                        fromRow == swift.state,
                        "row written at \(written.timeIntervalSince(Self.start)), read at \(moment.timeIntervalSince(Self.start))"
                    )
                }
            }
        }
    }

    @Test("subscriptions_v1 gets the rule inlined (its plan shows the CASE), not a function call per row")
    func inlined() async throws {
        try await Self.withMigratedClient { client in
            let plan = try await Self.lines(
                "EXPLAIN (VERBOSE, COSTS OFF) SELECT state, active FROM subscriptions.subscriptions_v1", client: client)
            let text = plan.joined(separator: "\n")
            #expect(!text.contains("effective_state"), "\(text)")
            #expect(!text.contains("grants_access"), "\(text)")
            #expect(text.contains("CASE"), "\(text)")
        }
    }

    /// The function's arguments.
    struct Arguments {
        var periodType: String
        var periodStartsAt: Date?
        var periodEndsAt: Date
        var endedAt: Date?
        var revokedAt: Date?
        var revocation: String?
        var observedAt: Date?
        var graceExpiresAt: Date?
        var billingRetry: Bool
        var paused: Bool
        var at: Date

        /// From the facts: the governing period and the renewal facts.
        init(facts: SubscriptionFacts, at: Date) {
            let current = facts.current
            periodType = current?.periodType.rawValue ?? "normal"
            periodStartsAt = current?.startsAt
            periodEndsAt = current?.endsAt ?? at
            endedAt = facts.renewal.endedAt
            revokedAt = current?.revokedAt
            revocation = current?.revocationKind?.rawValue
            observedAt = facts.renewal.observedAt
            graceExpiresAt = facts.renewal.graceExpiresAt
            billingRetry = facts.renewal.billingRetry
            paused = facts.renewal.paused
            self.at = at
        }

        /// From a stored row, as `subscriptions_v1` passes its columns: the status written then, the renewal facts.
        init(stored: SubscriptionStatus, renewal: SubscriptionFacts.Renewal, at: Date) {
            periodType = stored.periodType.rawValue
            periodStartsAt = stored.periodStartedAt
            periodEndsAt = stored.expiresAt
            endedAt = renewal.endedAt
            revokedAt = stored.revokedAt
            revocation = stored.state.rawValue
            observedAt = renewal.observedAt
            graceExpiresAt = renewal.graceExpiresAt
            billingRetry = renewal.billingRetry
            paused = renewal.paused
            self.at = at
        }
    }

    static func effectiveState(_ arguments: Arguments, client: PostgresClient) async throws -> SubscriptionState? {
        let a = arguments
        let rows = try await client.query(
            """
            SELECT subscriptions.effective_state(
                \(a.periodType)::text, \(a.periodStartsAt)::timestamptz, \(a.periodEndsAt)::timestamptz,
                \(a.endedAt)::timestamptz, \(a.revokedAt)::timestamptz, \(a.revocation)::text,
                \(a.observedAt)::timestamptz, \(a.graceExpiresAt)::timestamptz, \(a.billingRetry)::boolean,
                \(a.paused)::boolean, \(a.at)::timestamptz)
            """, logger: logger)
        var states: [SubscriptionState?] = []
        for try await raw in rows.decode(String.self) { states.append(SubscriptionState(rawValue: raw)) }
        return try #require(states.first)
    }

    static func grantsAccess(_ state: SubscriptionState?, client: PostgresClient) async throws -> Bool {
        let raw: String? = state?.rawValue
        let rows = try await client.query("SELECT subscriptions.grants_access(\(raw)::text)", logger: logger)
        for try await granted in rows.decode(Bool.self) { return granted }
        return false
    }

    static func lines(_ sql: String, client: PostgresClient) async throws -> [String] {
        var lines: [String] = []
        for try await line in try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self)
        {
            lines.append(line)
        }
        return lines
    }

    static let logger = Logger(label: "effective-state-test")

    /// The shared test database with the subscriptions schema up to date (as the service migrates it at start).
    static func withMigratedClient(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        try await TestDatabase.withClient { client in
            try await SubscriptionsMigrations.runner.run(client: client, logger: logger)
            try await body(client)
        }
    }
}
