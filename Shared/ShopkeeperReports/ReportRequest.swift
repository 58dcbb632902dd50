import Foundation
import Hummingbird
import HummingbirdCore
import ShopkeeperHTTP
import ShopkeeperModels

/// What a report may be asked for: its name, the groupings it offers and whether it is kept per store environment.
package struct ReportSpec: Sendable {
    /// `sales`, `usage`...: the last segment of its path, and the `report` of its answer.
    package var name: String
    /// The `group_by` values it accepts, in the order its rows are keyed by.
    package var dimensions: [String]
    /// The grouping when `group_by` is not given.
    package var defaultGroupBy: [String]
    /// Dimensions every grouping must include (the subscription states exist per day only).
    package var requiredDimensions: [String] = []
    /// Whether its figures are kept per store environment (`?environment=`, default `production`).
    package var hasEnvironment: Bool

    package init(
        name: String, dimensions: [String], defaultGroupBy: [String], requiredDimensions: [String] = [],
        hasEnvironment: Bool
    ) {
        self.name = name
        self.dimensions = dimensions
        self.defaultGroupBy = defaultGroupBy
        self.requiredDimensions = requiredDimensions
        self.hasEnvironment = hasEnvironment
    }
}

/// How a report is answered: JSON (the default) or CSV.
package enum ReportFormat: String, Sendable, CaseIterable {
    case json
    case csv
}

/// One report request, read from the query and checked: a range of UTC days, a grouping, an environment, a format.
package struct ReportRequest: Sendable, Equatable {
    /// The most days one report covers (`from` and `to` included).
    package static let maximumDays = 400
    /// About how many rows one JSON page holds when `limit` is not given (``ReportPaging``), and the most it may ask.
    package static let defaultLimit = 10_000
    package static let maximumLimit = 100_000

    package var from: ReportDay
    package var to: ReportDay
    /// Dimensions of the spec, in the spec's order.
    package var groupBy: [String]
    /// `nil` for reports that are not kept per environment.
    package var environment: StoreEnvironment?
    package var format: ReportFormat
    /// About how many rows a JSON page grouped by day holds (``ReportPaging``).
    package var limit: Int

    package init(
        from: ReportDay, to: ReportDay, groupBy: [String], environment: StoreEnvironment?, format: ReportFormat,
        limit: Int = ReportRequest.defaultLimit
    ) {
        self.from = from
        self.to = to
        self.groupBy = groupBy
        self.environment = environment
        self.format = format
        self.limit = limit
    }

    /// Whether the rows are grouped by `dimension`.
    package func groups(by dimension: String) -> Bool { groupBy.contains(dimension) }

    /// Reads `from`, `to`, `group_by`, `environment`, `format` and `limit` from `query`, and the format from `accept` when
    /// `format` is not given: CSV when the header names `text/csv` before any `application/json`. Every problem is
    /// reported at once (400 `invalid_query`).
    package static func read(
        _ query: FlatDictionary<Substring, Substring>, accept: String?, spec: ReportSpec
    ) throws(RequestError) -> ReportRequest {
        var problems: [FieldProblem] = []
        func single(_ name: String) -> String? {
            let values = query.getAll(name)
            if values.count > 1 { problems.append(FieldProblem(pointer: "?\(name)", detail: "must be given once")) }
            return values.first
        }
        func day(_ name: String) -> ReportDay? {
            guard let text = single(name) else {
                problems.append(FieldProblem(pointer: "?\(name)", detail: "is required (a UTC day: YYYY-MM-DD)"))
                return nil
            }
            guard let day = ReportDay(text) else {
                problems.append(
                    FieldProblem(pointer: "?\(name)", detail: "must be a UTC day YYYY-MM-DD of the years 1970 to 9999"))
                return nil
            }
            return day
        }
        let from = day("from")
        let to = day("to")
        if let from, let to {
            if from > to {
                problems.append(FieldProblem(pointer: "?to", detail: "must not be before from (\(from))"))
            } else if to.ordinal - from.ordinal + 1 > maximumDays {
                problems.append(
                    FieldProblem(pointer: "?to", detail: "must be at most \(maximumDays) days from from, both included")
                )
            }
        }
        let groupBy = Self.groupBy(single("group_by"), spec: spec, problems: &problems)
        var environment: StoreEnvironment?
        if spec.hasEnvironment {
            environment = .production
            if let text = single("environment") {
                environment = StoreEnvironment(rawValue: String(text))
                if environment == nil {
                    let allowed = StoreEnvironment.allCases.map(\.rawValue).joined(separator: ", ")
                    problems.append(FieldProblem(pointer: "?environment", detail: "must be one of \(allowed)"))
                }
            }
        } else if single("environment") != nil {
            problems.append(
                FieldProblem(pointer: "?environment", detail: "does not apply: the \(spec.name) report has none"))
        }
        var format = Self.format(accept: accept)
        if let text = single("format") {
            if let given = ReportFormat(rawValue: String(text)) {
                format = given
            } else {
                problems.append(FieldProblem(pointer: "?format", detail: "must be json or csv"))
            }
        }
        var limit = defaultLimit
        if let text = single("limit") {
            if let given = Int(text), (1...maximumLimit).contains(given) {
                limit = given
            } else {
                problems.append(
                    FieldProblem(pointer: "?limit", detail: "must be a whole number from 1 to \(maximumLimit)"))
            }
        }
        guard problems.isEmpty, let from, let to else { throw .invalidQuery(problems) }
        return ReportRequest(
            from: from, to: to, groupBy: groupBy, environment: environment, format: format, limit: limit)
    }

    private static func groupBy(_ text: String?, spec: ReportSpec, problems: inout [FieldProblem]) -> [String] {
        guard let text else { return spec.defaultGroupBy }
        // Empty: no dimension, the whole range in one row (per currency for sales).
        let given =
            text.isEmpty
            ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
        let allowed = spec.dimensions.joined(separator: ", ")
        var valid = true
        for name in given where !spec.dimensions.contains(name) {
            problems.append(
                FieldProblem(pointer: "?group_by", detail: "'\(name)' is not one of \(allowed) (comma-separated)"))
            valid = false
        }
        if valid, Set(given).count != given.count {
            problems.append(FieldProblem(pointer: "?group_by", detail: "names a dimension twice"))
            valid = false
        }
        for required in spec.requiredDimensions where valid && !given.contains(required) {
            problems.append(FieldProblem(pointer: "?group_by", detail: "must include \(required)"))
            valid = false
        }
        return spec.dimensions.filter(given.contains)
    }

    /// CSV when `Accept` names `text/csv` (with a quality above zero) before any `application/json`.
    package static func format(accept: String?) -> ReportFormat {
        guard let accept else { return .json }
        for range in accept.split(separator: ",") {
            let parameters = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parameters.first else { continue }
            let quality = parameters.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            if let quality, quality <= 0 { continue }
            if type == "text/csv" { return .csv }
            if type == "application/json" { return .json }
        }
        return .json
    }
}
