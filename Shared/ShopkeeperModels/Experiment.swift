import Foundation

/// An experiment: 2 to 4 offerings (variants, with weights) compared over an audience (`/v1/admin/experiments`).
/// Created as a draft, which may be edited; started once (its variants and weights are then fixed), stopped once
/// (for good: a new experiment continues it).
package struct Experiment: Codable, Hashable, Sendable {
    package var experimentID: String
    package var name: String
    /// Who takes part; `nil`: every request.
    package var audience: ExperimentAudience?
    /// In order: each customer's point in the hash's range falls in one variant's share (``ExperimentAssignment``).
    package var variants: [ExperimentVariant]
    package var state: ExperimentState
    package var startedAt: Date?
    package var stoppedAt: Date?

    package init(
        experimentID: String, name: String, audience: ExperimentAudience? = nil, variants: [ExperimentVariant],
        state: ExperimentState = .draft, startedAt: Date? = nil, stoppedAt: Date? = nil
    ) {
        self.experimentID = experimentID
        self.name = name
        self.audience = audience
        self.variants = variants
        self.state = state
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name, audience, variants, state
        case experimentID = "experiment_id"
        case startedAt = "started_at"
        case stoppedAt = "stopped_at"
    }

    /// A request body: `state`, `started_at` and `stopped_at` are the server's and may be sent back as they were read
    /// (they are ignored: only start and stop change them).
    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        experimentID = try container.decode(String.self, forKey: .experimentID)
        name = try container.decode(String.self, forKey: .name)
        audience = try container.decodeUnlessAbsent(ExperimentAudience.self, forKey: .audience)
        variants = try container.decode([ExperimentVariant].self, forKey: .variants)
        state = try container.decodeUnlessAbsent(ExperimentState.self, forKey: .state) ?? .draft
        startedAt = try container.decodeUnlessAbsent(Date.self, forKey: .startedAt)
        stoppedAt = try container.decodeUnlessAbsent(Date.self, forKey: .stoppedAt)
    }
}

/// Where an experiment is in its life: `draft` (editable, serves nothing), `running`, `stopped` (for good).
package enum ExperimentState: String, Codable, CaseIterable, Sendable {
    case draft, running, stopped
}

/// One arm of an experiment: the offering its customers are served, and its share of the audience.
package struct ExperimentVariant: Codable, Hashable, Sendable {
    /// Short and stable (`a`, `b`, `annual_first`): it names the variant in answers and results.
    package var key: String
    package var offeringID: String
    /// A positive integer: the variant's share is weight / Σ weights.
    package var weight: Int

    package init(key: String, offeringID: String, weight: Int) {
        self.key = key
        self.offeringID = offeringID
        self.weight = weight
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case key, weight
        case offeringID = "offering_id"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        offeringID = try container.decode(String.self, forKey: .offeringID)
        weight = try container.decode(Int.self, forKey: .weight)
    }
}

/// An experiment's audience: the requests a targeting rule matches, named by its id (`rule_id`, the rule as it is
/// when a request comes) or written out (`conditions`: a rule's conditions without its id and offering).
package struct ExperimentAudience: Codable, Hashable, Sendable {
    package var ruleID: String?
    package var conditions: AudienceConditions?

    package init(ruleID: String? = nil, conditions: AudienceConditions? = nil) {
        self.ruleID = ruleID
        self.conditions = conditions
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case conditions
        case ruleID = "rule_id"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ruleID = try container.decodeUnlessAbsent(String.self, forKey: .ruleID)
        conditions = try container.decodeUnlessAbsent(AudienceConditions.self, forKey: .conditions)
    }
}

/// A targeting rule's conditions written out (``TargetingRule``'s fields but its id and offering), all of which must
/// hold.
package struct AudienceConditions: Codable, Hashable, Sendable {
    /// The conditions as a rule whose id and offering are empty, so targeting's matching and checks apply as they are.
    package var rule: TargetingRule

    package init(rule: TargetingRule) {
        self.rule = rule
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case platforms, countries, locales, build, customer
        case minAppVersion = "min_app_version"
        case belowAppVersion = "below_app_version"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        rule = try TargetingRule(conditionsOf: decoder.container(keyedBy: TargetingRule.CodingKeys.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TargetingRule.CodingKeys.self)
        try container.encodeIfPresent(rule.platforms, forKey: .platforms)
        try container.encodeIfPresent(rule.countries, forKey: .countries)
        try container.encodeIfPresent(rule.minAppVersion, forKey: .minAppVersion)
        try container.encodeIfPresent(rule.belowAppVersion, forKey: .belowAppVersion)
        try container.encodeIfPresent(rule.locales, forKey: .locales)
        try container.encodeIfPresent(rule.build, forKey: .build)
        try container.encodeIfPresent(rule.customer, forKey: .customer)
    }
}

/// The experiments of an app (`GET /v1/admin/experiments`), newest first.
package struct ExperimentList: Codable, Hashable, Sendable {
    package var experiments: [Experiment]

    package init(experiments: [Experiment]) {
        self.experiments = experiments
    }
}

/// The experiment variant an offerings answer serves (`experiment` of ``OfferingsView``).
package struct ExperimentPick: Codable, Hashable, Sendable {
    /// The experiment's id.
    package var id: String
    /// The variant's key.
    package var variant: String

    package init(id: String, variant: String) {
        self.id = id
        self.variant = variant
    }
}
