import Foundation

/// What happens when a purchase that belongs to one customer is presented by another.
enum TransferPolicy: String, Codable, Sendable, CaseIterable {
    /// The purchase moves to the presenter; the old owner loses it; both get a `transfer` event.
    case transfer
    /// The purchase stays; the presenter gets 409 `already_owned_by_other_customer`.
    case keepWithOriginal = "keep_with_original"
    /// The purchase moves only when the old owner has nothing active from it (expired or revoked).
    case transferIfNoActive = "transfer_if_no_active"
}

/// An app's entitlement rules (`GET`/`PUT /v1/admin/entitlements/settings`).
struct AppEntitlementSettings: Codable, Sendable, Equatable {
    var transferPolicy: TransferPolicy
    /// Most distinct devices that may present one purchase.
    var deviceLimit: Int
    /// Whether sandbox purchases are accepted (App Review buys with sandbox accounts against production servers).
    var acceptSandbox: Bool
    /// The URL of the app's settings endpoint (one of its webhook endpoints) when it is enabled; `nil` for none. Read
    /// by the settings API only (the apply path reads it as `nil`: deliveries are written by the events' fan-out).
    var webhookURL: String?

    static let defaults = AppEntitlementSettings(
        transferPolicy: .transfer, deviceLimit: 25, acceptSandbox: true, webhookURL: nil)

    enum CodingKeys: String, CodingKey {
        case transferPolicy = "transfer_policy"
        case deviceLimit = "device_limit"
        case acceptSandbox = "accept_sandbox"
        case webhookURL = "webhook_url"
    }
}
