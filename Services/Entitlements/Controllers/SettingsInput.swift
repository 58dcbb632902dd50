import ShopkeeperHTTP
import ShopkeeperModels

/// The body of `PUT /v1/admin/entitlements/settings`: every field optional, an omitted (or `null`) field keeps its
/// current value, except `webhook_url`, where `null` removes the webhook. Unknown fields are refused.
struct SettingsInput: Decodable, Sendable {
    var transferPolicy: String?
    var deviceLimit: Int?
    var acceptSandbox: Bool?
    var webhookURL: WebhookURLChange

    /// What a request does to the webhook URL.
    enum WebhookURLChange: Sendable, Equatable {
        /// Omitted: keep it.
        case keep
        /// `null`: remove the webhook.
        case remove
        /// A URL to deliver to from now on.
        case set(String)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case transferPolicy = "transfer_policy"
        case deviceLimit = "device_limit"
        case acceptSandbox = "accept_sandbox"
        case webhookURL = "webhook_url"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transferPolicy = try container.decodeIfPresent(String.self, forKey: .transferPolicy)
        deviceLimit = try container.decodeIfPresent(Int.self, forKey: .deviceLimit)
        acceptSandbox = try container.decodeIfPresent(Bool.self, forKey: .acceptSandbox)
        if !container.contains(.webhookURL) {
            webhookURL = .keep
        } else if try container.decodeNil(forKey: .webhookURL) {
            webhookURL = .remove
        } else {
            webhookURL = .set(try container.decode(String.self, forKey: .webhookURL))
        }
    }

    /// The checked change; every invalid field is reported at once (422 `validation_failed`).
    func validated(policy: WebhookURLPolicy) throws(RequestError) -> SettingsChange {
        var problems: [FieldProblem] = []
        let transfer = transferPolicy.flatMap(TransferPolicy.init(rawValue:))
        if transferPolicy != nil, transfer == nil {
            let allowed = TransferPolicy.allCases.map(\.rawValue).joined(separator: ", ")
            problems.append(FieldProblem(pointer: "/transfer_policy", detail: "must be one of \(allowed)"))
        }
        if let deviceLimit, !SettingsChange.deviceLimits.contains(deviceLimit) {
            let range = SettingsChange.deviceLimits
            problems.append(
                FieldProblem(
                    pointer: "/device_limit", detail: "must be from \(range.lowerBound) to \(range.upperBound)"))
        }
        if case .set(let url) = webhookURL, let problem = policy.problem(with: url) {
            problems.append(FieldProblem(pointer: "/webhook_url", detail: problem))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return SettingsChange(
            transferPolicy: transfer, deviceLimit: deviceLimit, acceptSandbox: acceptSandbox, webhookURL: webhookURL)
    }
}

/// A checked settings change: `nil` fields keep their current values.
struct SettingsChange: Sendable, Equatable {
    /// The device limits an app may choose.
    static let deviceLimits = 1...10_000

    var transferPolicy: TransferPolicy?
    var deviceLimit: Int?
    var acceptSandbox: Bool?
    var webhookURL: SettingsInput.WebhookURLChange
}

/// The body of `GET` and `PUT /v1/admin/entitlements/settings`.
struct SettingsResponse: Encodable, Sendable {
    var settings: AppEntitlementSettings
    /// The webhook signing secret, only in the answer that created it.
    var webhookSecret: String?

    enum CodingKeys: String, CodingKey {
        case transferPolicy = "transfer_policy"
        case deviceLimit = "device_limit"
        case acceptSandbox = "accept_sandbox"
        case webhookURL = "webhook_url"
        case webhookSecret = "webhook_secret"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(settings.transferPolicy, forKey: .transferPolicy)
        try container.encode(settings.deviceLimit, forKey: .deviceLimit)
        try container.encode(settings.acceptSandbox, forKey: .acceptSandbox)
        // `null` says "no webhook" explicitly: it is what a PUT sends to remove one.
        try container.encode(settings.webhookURL, forKey: .webhookURL)
        try container.encodeIfPresent(webhookSecret, forKey: .webhookSecret)
    }
}

/// The body of `POST /v1/admin/entitlements/webhook-secret`.
struct WebhookSecretResponse: Encodable, Sendable {
    var webhookSecret: String

    enum CodingKeys: String, CodingKey {
        case webhookSecret = "webhook_secret"
    }
}
