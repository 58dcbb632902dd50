/// One targeting rule of an app (`/v1/admin/offering-rules`): when every condition it states holds for a request, its
/// offering is served. Rules are tried in order; the first that matches wins, and the default offering is served when
/// none does. A condition left out holds for every request.
package struct TargetingRule: Codable, Hashable, Sendable {
    /// The developer's id, unique within the app's rules.
    package var ruleID: String
    /// The offering served when the rule matches.
    package var offeringID: String
    /// The request's platform is one of these.
    package var platforms: [StorePlatform]?
    /// The request's storefront country (ISO 3166-1 alpha-2, such as `DE`) is one of these.
    package var countries: [String]?
    /// The app version is at least this one (compared number by number: `1.10` is above `1.9`).
    package var minAppVersion: AppVersion?
    /// The app version is below this one.
    package var belowAppVersion: AppVersion?
    /// The request's locale is one of these or lies under one (`de` matches `de-AT`), as product texts match.
    package var locales: [String]?
    package var build: BuildKind?
    /// Facts the server knows about the customer; the only conditions that make an answer depend on who asks.
    package var customer: CustomerCondition?

    package init(
        ruleID: String, offeringID: String, platforms: [StorePlatform]? = nil, countries: [String]? = nil,
        minAppVersion: AppVersion? = nil, belowAppVersion: AppVersion? = nil, locales: [String]? = nil,
        build: BuildKind? = nil, customer: CustomerCondition? = nil
    ) {
        self.ruleID = ruleID
        self.offeringID = offeringID
        self.platforms = platforms
        self.countries = countries
        self.minAppVersion = minAppVersion
        self.belowAppVersion = belowAppVersion
        self.locales = locales
        self.build = build
        self.customer = customer
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case ruleID = "rule_id"
        case offeringID = "offering_id"
        case platforms, countries, locales, build, customer
        case minAppVersion = "min_app_version"
        case belowAppVersion = "below_app_version"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(conditionsOf: container)
        ruleID = try container.decode(String.self, forKey: .ruleID)
        offeringID = try container.decode(String.self, forKey: .offeringID)
    }

    /// A rule with the conditions `container` holds, its id and offering empty (an experiment's audience, which
    /// writes a rule's conditions out, has neither).
    package init(conditionsOf container: KeyedDecodingContainer<CodingKeys>) throws {
        self.init(
            ruleID: "", offeringID: "",
            platforms: try container.decodeUnlessAbsent([StorePlatform].self, forKey: .platforms),
            countries: try container.decodeUnlessAbsent([String].self, forKey: .countries),
            minAppVersion: try container.decodeUnlessAbsent(AppVersion.self, forKey: .minAppVersion),
            belowAppVersion: try container.decodeUnlessAbsent(AppVersion.self, forKey: .belowAppVersion),
            locales: try container.decodeUnlessAbsent([String].self, forKey: .locales),
            build: try container.decodeUnlessAbsent(BuildKind.self, forKey: .build),
            customer: try container.decodeUnlessAbsent(CustomerCondition.self, forKey: .customer))
    }
}

/// What a targeting rule asks of the customer, from the facts the server holds (purchases, subscriptions, trials).
package struct CustomerCondition: Codable, Hashable, Sendable {
    /// `true`: the customer never bought anything nor started a trial (an id Shopkeeper does not know is new);
    /// `false`: the opposite.
    package var newCustomer: Bool?
    /// The customer's history in one subscription group.
    package var subscription: SubscriptionCondition?
    /// `true`: the customer used a free trial or introductory offer (the app's own trial, or a store's);
    /// `false`: never did.
    package var trialUsed: Bool?

    package init(newCustomer: Bool? = nil, subscription: SubscriptionCondition? = nil, trialUsed: Bool? = nil) {
        self.newCustomer = newCustomer
        self.subscription = subscription
        self.trialUsed = trialUsed
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case subscription
        case newCustomer = "new_customer"
        case trialUsed = "trial_used"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        newCustomer = try container.decodeUnlessAbsent(Bool.self, forKey: .newCustomer)
        subscription = try container.decodeUnlessAbsent(SubscriptionCondition.self, forKey: .subscription)
        trialUsed = try container.decodeUnlessAbsent(Bool.self, forKey: .trialUsed)
    }
}

/// A customer's history in one subscription group (the catalog's `group` of its products).
package struct SubscriptionCondition: Codable, Hashable, Sendable {
    package var group: String
    package var status: SubscriptionHistory

    package init(group: String, status: SubscriptionHistory) {
        self.group = group
        self.status = status
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case group, status
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        group = try container.decode(String.self, forKey: .group)
        status = try container.decode(SubscriptionHistory.self, forKey: .status)
    }
}

/// Where a customer stands with a subscription group.
package enum SubscriptionHistory: String, Codable, CaseIterable, Sendable {
    /// Has a subscription in the group that grants access now.
    case active
    /// Had one, and none grants access now.
    case lapsed
    /// Has or had one.
    case ever
    /// Never had one.
    case never
}

/// An app's offerings and targeting rules as one document (`GET`/`PUT /v1/admin/offerings`), so they can live in
/// git beside the catalog.
package struct OfferingsDocument: Codable, Hashable, Sendable {
    package var offerings: [Offering]
    /// In the order they are tried.
    package var rules: [TargetingRule]

    package init(offerings: [Offering], rules: [TargetingRule] = []) {
        self.offerings = offerings
        self.rules = rules
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case offerings, rules
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offerings = try container.decode([Offering].self, forKey: .offerings)
        rules = try container.decodeUnlessAbsent([TargetingRule].self, forKey: .rules) ?? []
    }
}

/// An app's targeting rules, in the order they are tried (`GET`/`PUT /v1/admin/offering-rules`).
package struct TargetingRules: Codable, Hashable, Sendable {
    package var rules: [TargetingRule]

    package init(rules: [TargetingRule]) {
        self.rules = rules
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case rules
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        rules = try decoder.container(keyedBy: CodingKeys.self).decode([TargetingRule].self, forKey: .rules)
    }
}

/// What replacing an app's offerings document changed (`PUT /v1/admin/offerings`): offerings and rules by id, each
/// with the catalog's revision after the write.
package struct OfferingsImportResult: Codable, Hashable, Sendable {
    package var offerings: CatalogImportResult
    package var rules: CatalogImportResult

    package init(offerings: CatalogImportResult, rules: CatalogImportResult) {
        self.offerings = offerings
        self.rules = rules
    }
}
