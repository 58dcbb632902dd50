import Foundation
import ShopkeeperHTTP
import ShopkeeperModels

/// One of an app's webhook endpoints, as the admin API shows it (never with its secret).
struct WebhookEndpoint: Sendable, Equatable, Encodable {
    var id: UUID
    var url: String
    var description: String
    /// The event types delivered here; `nil` for every type.
    var eventTypes: [String]?
    /// The environments whose events are delivered here (`production`, `sandbox`); `nil` for every environment.
    var environments: [String]?
    var format: WebhookFormat
    var enabled: Bool
    /// Whether this is the endpoint `webhook_url` of `PUT /v1/admin/entitlements/settings` names.
    var fromSettings: Bool
    var createdAt: String
    var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case id, url, description, format, enabled
        case eventTypes = "event_types"
        case environments
        case fromSettings = "from_settings"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.uuidString.lowercased(), forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(description, forKey: .description)
        // `null` says "every type" (or environment) explicitly: it is what an update sends to widen a filter.
        try container.encode(eventTypes, forKey: .eventTypes)
        try container.encode(environments, forKey: .environments)
        try container.encode(format, forKey: .format)
        try container.encode(enabled, forKey: .enabled)
        try container.encode(fromSettings, forKey: .fromSettings)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// An endpoint with its signing secret, in the answers that create or rotate it (the only ones that show it).
struct WebhookEndpointWithSecret: Sendable, Encodable {
    var endpoint: WebhookEndpoint
    var secret: String

    enum CodingKeys: String, CodingKey {
        case secret
    }

    func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(secret, forKey: .secret)
    }
}

/// How an endpoint's deliveries are going: how many are delivered, waiting (`pending`, of which `failing` after a
/// failed attempt) and dead, and the last attempt's outcome.
struct WebhookEndpointStats: Sendable, Equatable, Encodable {
    var endpointID: UUID
    var delivered: Int
    var pending: Int
    var failing: Int
    var dead: Int
    var lastAttemptAt: String?
    var lastStatus: Int?
    var lastError: String?

    enum CodingKeys: String, CodingKey {
        case endpointID = "endpoint_id"
        case delivered, pending, failing, dead
        case lastAttemptAt = "last_attempt_at"
        case lastStatus = "last_status"
        case lastError = "last_error"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(endpointID.uuidString.lowercased(), forKey: .endpointID)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(pending, forKey: .pending)
        try container.encode(failing, forKey: .failing)
        try container.encode(dead, forKey: .dead)
        try container.encode(lastAttemptAt, forKey: .lastAttemptAt)
        try container.encode(lastStatus, forKey: .lastStatus)
        try container.encode(lastError, forKey: .lastError)
    }
}
