import ShopkeeperHTTP
import ShopkeeperModels

/// The body of `POST /v1/admin/webhook-endpoints` (create: `url` required) and of
/// `PUT /v1/admin/webhook-endpoints/{endpoint_id}` (update: an omitted field keeps its value; `null` for
/// `event_types` or `environments` means every type, every environment). Unknown fields are refused.
struct WebhookEndpointInput: Decodable, Sendable {
    var url: String?
    var description: String?
    var eventTypes: FieldChange<[String]?>
    var environments: FieldChange<[String]?>
    var format: String?
    var enabled: Bool?

    /// What a request does to a field whose value may be `null`.
    enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
        /// Omitted: keep it (on create: the default, `null`).
        case keep
        /// Given (`null` included).
        case set(Value)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case url, description, format, enabled, environments
        case eventTypes = "event_types"
    }

    /// The environments an endpoint may choose; `sandbox` stands for every test environment.
    static let environmentNames = ["production", "sandbox"]
    /// Longest description accepted.
    static let maximumDescriptionLength = 256

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        format = try container.decodeIfPresent(String.self, forKey: .format)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        eventTypes = try Self.change(.eventTypes, in: container)
        environments = try Self.change(.environments, in: container)
    }

    private static func change(
        _ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> FieldChange<[String]?> {
        guard container.contains(key) else { return .keep }
        if try container.decodeNil(forKey: key) { return .set(nil) }
        return .set(try container.decode([String].self, forKey: key))
    }

    /// The checked change; every invalid field is reported at once (422 `validation_failed`). `creating` requires
    /// `url`.
    func validated(policy: WebhookURLPolicy, creating: Bool) throws(RequestError) -> WebhookEndpointChange {
        var problems: [FieldProblem] = []
        if let url {
            if let problem = policy.problem(with: url) {
                problems.append(FieldProblem(pointer: "/url", detail: problem))
            }
        } else if creating {
            problems.append(FieldProblem(pointer: "/url", detail: "is required"))
        }
        if let description {
            // Counted as JSON Schema counts (code points); control characters (NUL among them) are refused.
            if description.unicodeScalars.count > Self.maximumDescriptionLength {
                problems.append(
                    FieldProblem(
                        pointer: "/description", detail: "must be at most \(Self.maximumDescriptionLength) characters"))
            } else if description.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problems.append(
                    FieldProblem(pointer: "/description", detail: "must be one line without control characters"))
            }
        }
        let checkedTypes = Self.checked(
            eventTypes, allowed: EventType.allCases.map(\.rawValue), pointer: "/event_types", what: "event type",
            problems: &problems)
        let checkedEnvironments = Self.checked(
            environments, allowed: Self.environmentNames, pointer: "/environments", what: "environment",
            problems: &problems)
        let checkedFormat = format.flatMap(WebhookFormat.init(rawValue:))
        if format != nil, checkedFormat == nil {
            let allowed = WebhookFormat.allCases.map(\.rawValue).joined(separator: ", ")
            problems.append(FieldProblem(pointer: "/format", detail: "must be one of \(allowed)"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return WebhookEndpointChange(
            url: url, description: description, eventTypes: checkedTypes, environments: checkedEnvironments,
            format: checkedFormat, enabled: enabled)
    }

    /// A filter list checked: each name one of `allowed`, at least one, duplicates dropped (order kept).
    private static func checked(
        _ change: FieldChange<[String]?>, allowed: [String], pointer: String, what: String,
        problems: inout [FieldProblem]
    ) -> FieldChange<[String]?> {
        guard case .set(let names?) = change else { return change }
        guard !names.isEmpty else {
            problems.append(
                FieldProblem(
                    pointer: pointer, detail: "must name at least one \(what); null (or nothing) means every \(what)"))
            return change
        }
        var unique: [String] = []
        for (index, name) in names.enumerated() {
            guard allowed.contains(name) else {
                problems.append(
                    FieldProblem(
                        pointer: "\(pointer)/\(index)",
                        detail: "must be one of \(allowed.joined(separator: ", "))"))
                continue
            }
            if !unique.contains(name) { unique.append(name) }
        }
        return .set(unique)
    }
}

/// A checked endpoint change: `nil` fields (and ``WebhookEndpointInput/FieldChange/keep``) keep their values, or take
/// the defaults on create (every type, every environment, `shopkeeper`, enabled, no description).
struct WebhookEndpointChange: Sendable, Equatable {
    var url: String?
    var description: String?
    var eventTypes: WebhookEndpointInput.FieldChange<[String]?>
    var environments: WebhookEndpointInput.FieldChange<[String]?>
    var format: WebhookFormat?
    var enabled: Bool?
}
