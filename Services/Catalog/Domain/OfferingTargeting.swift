import ShopkeeperModels

/// Who asks for offerings: the catalog query (platform, build, version, variant, locale) and the storefront country.
struct OfferingQuery: Hashable, Sendable {
    var catalog: CatalogQuery
    /// ISO 3166-1 alpha-2, upper case.
    var country: String?
}

/// The targeting rules: which offering a request gets. Pure: tested with tables.
enum OfferingTargeting {
    /// The first rule of `rules` that matches, or `nil` (the default offering). `facts` is asked at most once, and only
    /// when a rule whose other conditions hold asks about the customer; `usedFacts` says whether it was.
    static func choose(
        rules: [TargetingRule],
        query: OfferingQuery,
        facts: () async throws -> CustomerFacts
    ) async rethrows -> (rule: TargetingRule?, usedFacts: Bool) {
        var known: CustomerFacts?
        for rule in rules where matches(rule, query: query) {
            guard let condition = rule.customer else { return (rule, known != nil) }
            let customer: CustomerFacts
            if let known {
                customer = known
            } else {
                customer = try await facts()
                known = customer
            }
            if matches(condition, facts: customer) { return (rule, true) }
        }
        return (nil, known != nil)
    }

    /// Whether the request-side conditions of `rule` (all but the customer's) hold for `query`.
    static func matches(_ rule: TargetingRule, query: OfferingQuery) -> Bool {
        if let platforms = rule.platforms, !platforms.contains(query.catalog.platform) { return false }
        if let countries = rule.countries {
            guard let country = query.country, countries.contains(country) else { return false }
        }
        if let minimum = rule.minAppVersion, query.catalog.appVersion < minimum { return false }
        if let below = rule.belowAppVersion, !(query.catalog.appVersion < below) { return false }
        if let locales = rule.locales {
            guard let locale = query.catalog.locale,
                locales.contains(where: { LocaleMatcher.covers($0, requested: locale) })
            else { return false }
        }
        if let build = rule.build, build != query.catalog.build { return false }
        return true
    }

    /// Whether the customer's facts satisfy `condition`.
    static func matches(_ condition: CustomerCondition, facts: CustomerFacts) -> Bool {
        if let new = condition.newCustomer, new != facts.isNew { return false }
        if let used = condition.trialUsed, used != facts.trialUsed { return false }
        if let subscription = condition.subscription {
            let ever = facts.groupsEver.contains(subscription.group)
            let active = facts.groupsActive.contains(subscription.group)
            switch subscription.status {
            case .active: if !active { return false }
            case .lapsed: if !ever || active { return false }
            case .ever: if !ever { return false }
            case .never: if ever { return false }
            }
        }
        return true
    }
}

extension OfferingTargeting {
    /// The first of the running `experiments` whose audience matches the request, or `nil`. An audience names a rule
    /// of `rules` (as it is now; a rule since removed matches nothing) or writes out a rule's conditions; no audience
    /// is everyone. `facts` is asked only when an audience asks about the customer; `usedFacts` says whether it was.
    static func experiment(
        running experiments: [Experiment],
        rules: [TargetingRule],
        query: OfferingQuery,
        facts: () async throws -> CustomerFacts
    ) async rethrows -> (experiment: Experiment?, usedFacts: Bool) {
        var usedFacts = false
        for experiment in experiments {
            guard let audience = experiment.audience else { return (experiment, usedFacts) }
            let rule = audience.ruleID.flatMap { id in rules.first { $0.ruleID == id } } ?? audience.conditions?.rule
            guard let rule else { continue }
            let chosen = try await choose(rules: [rule], query: query, facts: facts)
            usedFacts = usedFacts || chosen.usedFacts
            if chosen.rule != nil { return (experiment, usedFacts) }
        }
        return (nil, usedFacts)
    }
}
