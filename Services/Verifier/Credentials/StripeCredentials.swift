import Foundation
import ShopkeeperModels

/// What the verifier needs to sell through an app's Stripe account: its secret key (to create Checkout Sessions and
/// to read back every object a webhook names) and the signing secrets of its webhook endpoint. Both are sealed at
/// rest and never rendered; an admin sees the key's mode and last four characters.
///
/// A Stripe key belongs to one mode: a test key (`sk_test_`, `rk_test_`) sells in Stripe's test mode, recorded as
/// the `sandbox` environment; a live key (`sk_live_`, `rk_live_`) takes real money, recorded as `production`.
struct StripeCredentials: Codable, Sendable, Equatable {
    /// A secret key (`sk_...`) or a restricted key (`rk_...`) with the permissions Shopkeeper uses.
    var secretKey: String
    /// The endpoint's signing secrets (`whsec_...`): one, or two while a secret is rolled at Stripe.
    var webhookSecrets: [String]

    enum CodingKeys: String, CodingKey {
        case secretKey = "secret_key"
        case webhookSecrets = "webhook_secrets"
    }

    /// Whether the key takes real money (Stripe's `livemode`).
    var livemode: Bool { Self.isLive(secretKey) }

    /// The environment the key's purchases are recorded in.
    var environment: StoreEnvironment { livemode ? .production : .sandbox }

    /// Whether `key` is a live-mode key.
    static func isLive(_ key: String) -> Bool { key.hasPrefix("sk_live_") || key.hasPrefix("rk_live_") }

    /// The view an admin may see.
    var view: StripeCredentialsView {
        StripeCredentialsView(
            livemode: livemode, environments: [environment], secretKeyLast4: String(secretKey.suffix(4)),
            webhookSecretsLast4: webhookSecrets.map { String($0.suffix(4)) })
    }
}

/// The Stripe credentials without their secrets: enough to tell which key and which signing secrets are set.
struct StripeCredentialsView: Codable, Sendable, Equatable {
    var livemode: Bool
    /// `[production]` for a live key, `[sandbox]` for a test key, as the other stores show them.
    var environments: [StoreEnvironment]
    var secretKeyLast4: String
    var webhookSecretsLast4: [String]

    enum CodingKeys: String, CodingKey {
        case livemode, environments
        case secretKeyLast4 = "secret_key_last4"
        case webhookSecretsLast4 = "webhook_secrets_last4"
    }
}
