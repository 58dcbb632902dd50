import ShopkeeperModels
import Testing

@testable import Catalog

/// The targeting rules as a table: each field alone, then order and the default.
@Suite struct OfferingTargetingTests {
    static func query(
        platform: StorePlatform = .appStore, build: BuildKind = .distribution, version: String = "2.0",
        locale: String? = "en-US", country: String? = "US"
    ) -> OfferingQuery {
        OfferingQuery(
            catalog: CatalogQuery(
                platform: platform, build: build, appVersion: AppVersion(version) ?? AppVersion("0")!, variant: nil,
                locale: locale),
            country: country)
    }

    static func rule(_ edit: (inout TargetingRule) -> Void) -> TargetingRule {
        var rule = TargetingRule(ruleID: "r", offeringID: "o")
        edit(&rule)
        return rule
    }

    static let requestCases: [(String, TargetingRule, OfferingQuery, Bool)] = [
        ("no conditions", rule { _ in }, query(), true),
        ("platform listed", rule { $0.platforms = [.playStore, .appStore] }, query(), true),
        ("platform not listed", rule { $0.platforms = [.playStore] }, query(), false),
        ("country listed", rule { $0.countries = ["DE", "US"] }, query(), true),
        ("country not listed", rule { $0.countries = ["DE"] }, query(), false),
        ("country unknown", rule { $0.countries = ["DE"] }, query(country: nil), false),
        ("at the minimum version", rule { $0.minAppVersion = AppVersion("2.0.0") }, query(version: "2"), true),
        (
            "below the minimum, numerically", rule { $0.minAppVersion = AppVersion("1.10") }, query(version: "1.9"),
            false
        ),
        ("above the minimum, numerically", rule { $0.minAppVersion = AppVersion("1.9") }, query(version: "1.10"), true),
        ("below the upper bound", rule { $0.belowAppVersion = AppVersion("3") }, query(version: "2.9.9"), true),
        ("at the upper bound (excluded)", rule { $0.belowAppVersion = AppVersion("3") }, query(version: "3.0"), false),
        ("language covers a region", rule { $0.locales = ["de"] }, query(locale: "de_AT"), true),
        ("region matches exactly", rule { $0.locales = ["de-AT"] }, query(locale: "DE-at"), true),
        ("another region", rule { $0.locales = ["de-AT"] }, query(locale: "de-CH"), false),
        ("a language is not a prefix of letters", rule { $0.locales = ["de"] }, query(locale: "dea"), false),
        ("no locale asked", rule { $0.locales = ["en"] }, query(locale: nil), false),
        ("development build", rule { $0.build = .development }, query(build: .development), true),
        ("distribution build", rule { $0.build = .development }, query(), false),
        (
            "every condition holds",
            rule {
                $0.platforms = [.appStore]
                $0.countries = ["US"]
                $0.minAppVersion = AppVersion("1")
                $0.locales = ["en"]
                $0.build = .distribution
            },
            query(), true
        ),
        (
            "one condition fails",
            rule {
                $0.platforms = [.appStore]
                $0.countries = ["FR"]
            },
            query(), false
        ),
    ]

    @Test(arguments: requestCases)
    func requestConditions(name: String, rule: TargetingRule, query: OfferingQuery, matches: Bool) {
        #expect(OfferingTargeting.matches(rule, query: query) == matches, "\(name)")
    }

    static let subscriber = CustomerFacts(
        isNew: false, groupsEver: ["club", "gardens"], groupsActive: ["club"], trialUsed: true)

    static let customerCases: [(String, CustomerCondition, CustomerFacts, Bool)] = [
        ("new customer, unknown id", .init(newCustomer: true), .unknown, true),
        ("new customer, a buyer", .init(newCustomer: true), subscriber, false),
        ("returning customer", .init(newCustomer: false), subscriber, true),
        ("active in group", .init(subscription: .init(group: "club", status: .active)), subscriber, true),
        ("active, only lapsed", .init(subscription: .init(group: "gardens", status: .active)), subscriber, false),
        ("lapsed", .init(subscription: .init(group: "gardens", status: .lapsed)), subscriber, true),
        ("lapsed, still active", .init(subscription: .init(group: "club", status: .lapsed)), subscriber, false),
        ("ever, active", .init(subscription: .init(group: "club", status: .ever)), subscriber, true),
        ("ever, never had", .init(subscription: .init(group: "seeds", status: .ever)), subscriber, false),
        ("never", .init(subscription: .init(group: "seeds", status: .never)), subscriber, true),
        ("never, had", .init(subscription: .init(group: "gardens", status: .never)), subscriber, false),
        ("trial used", .init(trialUsed: true), subscriber, true),
        ("trial not used", .init(trialUsed: false), subscriber, false),
        ("trial not used, new", .init(trialUsed: false), .unknown, true),
        (
            "all of them",
            .init(newCustomer: false, subscription: .init(group: "club", status: .active), trialUsed: true), subscriber,
            true
        ),
    ]

    @Test(arguments: customerCases)
    func customerConditions(name: String, condition: CustomerCondition, facts: CustomerFacts, matches: Bool) {
        #expect(OfferingTargeting.matches(condition, facts: facts) == matches, "\(name)")
    }

    @Test func firstMatchWinsAndTheDefaultOtherwise() async throws {
        let rules = [
            TargetingRule(ruleID: "germany", offeringID: "de", countries: ["DE"]),
            TargetingRule(ruleID: "europe", offeringID: "eu", countries: ["DE", "FR"]),
            TargetingRule(ruleID: "android", offeringID: "play", platforms: [.playStore]),
        ]
        let noFacts: () async throws -> CustomerFacts = {
            Issue.record("facts read"); return .unknown
        }
        #expect(
            try await OfferingTargeting.choose(rules: rules, query: Self.query(country: "DE"), facts: noFacts).rule?
                .ruleID == "germany")
        #expect(
            try await OfferingTargeting.choose(rules: rules, query: Self.query(country: "FR"), facts: noFacts).rule?
                .ruleID == "europe")
        #expect(
            try await OfferingTargeting.choose(
                rules: rules, query: Self.query(platform: .playStore, country: "FR"), facts: noFacts
            )
            .rule?.ruleID == "europe")
        let none = try await OfferingTargeting.choose(rules: rules, query: Self.query(country: "US"), facts: noFacts)
        #expect(none.rule == nil && !none.usedFacts)
    }

    /// Facts are read once, and only when a rule whose request conditions hold asks about the customer.
    @Test func customerFactsAreReadOnlyWhenARuleNeedsThem() async throws {
        let rules = [
            TargetingRule(
                ruleID: "winback_fr", offeringID: "a", countries: ["FR"],
                customer: .init(subscription: .init(group: "club", status: .lapsed))),
            TargetingRule(ruleID: "new", offeringID: "b", customer: .init(newCustomer: true)),
            TargetingRule(ruleID: "trial", offeringID: "c", customer: .init(trialUsed: true)),
        ]
        let reads = Counter()
        let facts: () async throws -> CustomerFacts = {
            reads.count += 1
            return Self.subscriber
        }
        let chosen = try await OfferingTargeting.choose(rules: rules, query: Self.query(country: "US"), facts: facts)
        #expect(chosen.rule?.ruleID == "trial" && chosen.usedFacts)
        #expect(reads.count == 1)

        let shared = try await OfferingTargeting.choose(
            rules: [TargetingRule(ruleID: "us", offeringID: "a", countries: ["US"])] + rules, query: Self.query(),
            facts: facts)
        #expect(shared.rule?.ruleID == "us" && !shared.usedFacts)
        #expect(reads.count == 1)
    }

    final class Counter: @unchecked Sendable {
        var count = 0
    }
}
