import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// The rules an experiment follows beyond its JSON shape, reported all at once with JSON pointers: an id, a name,
/// 2 to 4 variants with distinct keys, positive weights and offerings of the app, an audience that is a rule of the
/// app or a rule's valid conditions. What SQL also holds (offerings exist, weights positive) is checked here first
/// for a clear pointer.
enum ExperimentValidator {
    /// The largest weight: shares are integers, so 10,000 allows hundredths of a percent.
    static let maxWeight = 10_000

    static func problems(of experiment: Experiment, snapshot: CatalogSnapshot) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        func add(_ pointer: String, _ detail: String) {
            problems.append(FieldProblem(pointer: pointer, detail: detail))
        }
        if !ProductValidator.isIdentifier(experiment.experimentID, maxLength: 100) {
            add("/experiment_id", "must be 1-100 letters, digits, '.', '_' or '-'")
        }
        if experiment.name.trimmingCharacters(in: .whitespaces).isEmpty || experiment.name.count > 200 {
            add("/name", "must be 1-200 characters")
        }
        if !(2...4).contains(experiment.variants.count) {
            add("/variants", "must have 2 to 4 variants")
        }
        let offerings = Set(snapshot.offerings.map(\.offeringID))
        var seen: [String: Int] = [:]
        for (index, variant) in experiment.variants.enumerated() {
            let base = "/variants/\(index)"
            if !isVariantKey(variant.key) {
                add("\(base)/key", "must be 1-32 lower-case letters, digits or '_', such as a or annual_first")
            } else if let first = seen[variant.key] {
                add("\(base)/key", "repeats /variants/\(first)/key")
            } else {
                seen[variant.key] = index
            }
            if !offerings.contains(variant.offeringID) { add("\(base)/offering_id", "names no offering of this app") }
            if !(1...maxWeight).contains(variant.weight) {
                add("\(base)/weight", "must be a whole number from 1 to \(maxWeight)")
            }
        }
        if let audience = experiment.audience {
            switch (audience.ruleID, audience.conditions) {
            case (let ruleID?, nil):
                if !snapshot.rules.contains(where: { $0.ruleID == ruleID }) {
                    add("/audience/rule_id", "names no targeting rule of this app")
                }
            case (nil, let conditions?):
                // The rule checks as they are, with the conditions' own pointer (a placeholder id and offering).
                let placeholder = "audience"
                var rule = conditions.rule
                (rule.ruleID, rule.offeringID) = (placeholder, placeholder)
                for problem in OfferingValidator.problems(of: [rule], offerings: [placeholder], at: "/audience") {
                    let field = problem.pointer.dropFirst("/audience/0".count)
                    problems.append(FieldProblem(pointer: "/audience/conditions\(field)", detail: problem.detail))
                }
            default:
                add("/audience", "must have exactly one of rule_id and conditions")
            }
        }
        return problems
    }

    /// `a`, `b`, `annual_first`.
    static func isVariantKey(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }
}
