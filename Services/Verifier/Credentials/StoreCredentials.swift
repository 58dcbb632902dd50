import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// What the verifier needs to check an app's Apple proofs. Secrets (`shared_secret`, the API
/// key's `private_key`) are sealed at rest and never rendered.
struct AppleCredentials: Codable, Sendable, Equatable {
    var bundleID: String
    /// The App Apple ID; Production answers of the App Store Server API must carry it.
    var appAppleID: Int64?
    /// The environments this app accepts purchases from.
    var environments: [StoreEnvironment]
    /// The app-specific shared secret of legacy `verifyReceipt`.
    var sharedSecret: String?
    var apiKey: AppStoreAPIKey?
    /// Whether and how to answer `CONSUMPTION_REQUEST` notifications; `nil`: they are not answered.
    var consumptionAnswers: ConsumptionAnswers?
    /// The certificate Xcode's StoreKit Testing signs with (PEM), exported by the developer; `Xcode` and
    /// `LocalTesting` proofs are verified against it, for an app not in production mode. Public, so it is shown.
    var storeKitTestCertificate: String? = nil
    /// The explicit development setting `accept_local_testing`: `Xcode` and `LocalTesting` data is accepted as Apple's
    /// App Store Server Library accepts it, without checking who signed it (or whether anyone did), for an app in
    /// development mode only. `nil` (the default) is off: such data must verify against ``storeKitTestCertificate``.
    var acceptLocalTesting: Bool? = nil
    /// Variant name -> the bundle id of that edition of the app (a paid `full` edition sold as its own app): its
    /// app transactions are accepted and show that variant (the catalog's `included_in_variants`).
    var variantBundleIDs: [String: String]? = nil
    /// An App Store Connect API (team) key: the catalog sync reads the app's in-app purchases, subscriptions and
    /// prices with it. Apple's App Store Server API takes an in-app purchase key (``apiKey``) instead.
    var connectAPIKey: AppStoreAPIKey? = nil

    enum CodingKeys: String, CodingKey {
        case environments
        case bundleID = "bundle_id"
        case appAppleID = "app_apple_id"
        case sharedSecret = "shared_secret"
        case apiKey = "api_key"
        case consumptionAnswers = "consumption_answers"
        case storeKitTestCertificate = "storekit_test_certificate"
        case acceptLocalTesting = "accept_local_testing"
        case variantBundleIDs = "variant_bundle_ids"
        case connectAPIKey = "connect_api_key"
    }

    /// Whether `Xcode` and `LocalTesting` data is accepted unverified (``acceptLocalTesting``).
    var acceptsLocalTesting: Bool { acceptLocalTesting == true }

    /// The variant whose bundle id `bundleID` is; `nil` when it is none of them.
    func variant(ofBundleID bundleID: String) -> String? {
        variantBundleIDs?.first { $0.value == bundleID }?.key
    }

    /// Whether the app is in production mode: it accepts real-money purchases. Proofs signed by Xcode's StoreKit
    /// Testing are never granted for such an app.
    var isInProduction: Bool { environments.contains(.production) }

    /// The view an admin may see.
    var view: AppleCredentialsView {
        AppleCredentialsView(
            bundleID: bundleID, appAppleID: appAppleID, environments: environments,
            sharedSecretSet: sharedSecret != nil,
            apiKey: apiKey.map { AppleCredentialsView.KeyView(issuerID: $0.issuerID, keyID: $0.keyID) },
            consumptionAnswers: consumptionAnswers, storeKitTestCertificate: storeKitTestCertificate,
            acceptLocalTesting: acceptsLocalTesting, variantBundleIDs: variantBundleIDs ?? [:],
            connectAPIKey: connectAPIKey.map { AppleCredentialsView.KeyView(issuerID: $0.issuerID, keyID: $0.keyID) }
        )
    }
}

/// The app's answers to Apple's `CONSUMPTION_REQUEST` (a customer asked for a refund): setting them asserts that the
/// app's customers consented to sharing consumption data with Apple, which Apple requires before any answer.
struct ConsumptionAnswers: Codable, Sendable, Equatable {
    /// Apple's `refundPreference`: `DECLINE`, `GRANT_FULL` or `GRANT_PRORATED`; `nil` states none.
    var refundPreference: String?
    /// Apple's `sampleContentProvided`: whether the app offers a free sample or trial of its content.
    var sampleContentProvided: Bool

    static let refundPreferences = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    enum CodingKeys: String, CodingKey {
        case refundPreference = "refund_preference"
        case sampleContentProvided = "sample_content_provided"
    }

    init(refundPreference: String?, sampleContentProvided: Bool) {
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        refundPreference = try container.decodeIfPresent(String.self, forKey: .refundPreference)
        sampleContentProvided = try container.decodeIfPresent(Bool.self, forKey: .sampleContentProvided) ?? false
    }
}

/// An App Store Connect API key: an in-app purchase key for the App Store Server API, or a team key for the App Store
/// Connect API.
struct AppStoreAPIKey: Codable, Sendable, Equatable {
    var issuerID: String
    var keyID: String
    /// PKCS#8 PEM of the P-256 key, as App Store Connect hands it out (`.p8`).
    var privateKey: String

    enum CodingKeys: String, CodingKey {
        case issuerID = "issuer_id"
        case keyID = "key_id"
        case privateKey = "private_key"
    }
}

/// The Apple credentials without their secrets.
struct AppleCredentialsView: Codable, Sendable, Equatable {
    var bundleID: String
    var appAppleID: Int64?
    var environments: [StoreEnvironment]
    var sharedSecretSet: Bool
    var apiKey: KeyView?
    var consumptionAnswers: ConsumptionAnswers?
    var storeKitTestCertificate: String?
    var acceptLocalTesting: Bool
    var variantBundleIDs: [String: String]
    var connectAPIKey: KeyView? = nil

    struct KeyView: Codable, Sendable, Equatable {
        var issuerID: String
        var keyID: String

        enum CodingKeys: String, CodingKey {
            case issuerID = "issuer_id"
            case keyID = "key_id"
        }
    }

    enum CodingKeys: String, CodingKey {
        case environments
        case bundleID = "bundle_id"
        case appAppleID = "app_apple_id"
        case sharedSecretSet = "shared_secret_set"
        case apiKey = "api_key"
        case consumptionAnswers = "consumption_answers"
        case storeKitTestCertificate = "storekit_test_certificate"
        case acceptLocalTesting = "accept_local_testing"
        case variantBundleIDs = "variant_bundle_ids"
        case connectAPIKey = "connect_api_key"
    }
}

/// Which store a set of credentials is for.
enum CredentialStore: String, Codable, Sendable, CaseIterable {
    case apple
    case google
    case stripe
}

/// What the verifier needs to check an app's Google Play tokens. The service account's private key is
/// sealed at rest and never rendered.
struct GoogleCredentials: Codable, Sendable, Equatable {
    var packageName: String
    var serviceAccount: GoogleServiceAccountKey
    /// `sandbox` accepts test purchases (license testers); `production` real ones.
    var environments: [StoreEnvironment]
    /// The secret `?token=` of the app's Pub/Sub push URL, when the app authenticates pushes that way (instead of
    /// Google's OIDC token).
    var pushToken: String? = nil
    /// Whether consumable purchases are consumed at Google (`purchases.products.consume`) once they are granted
    /// here, so that the customer can buy them again; `nil` (credentials saved before the setting existed) is off.
    var consumeConsumables: Bool? = nil

    enum CodingKeys: String, CodingKey {
        case environments
        case packageName = "package_name"
        case serviceAccount = "service_account"
        case pushToken = "push_token"
        case consumeConsumables = "consume_consumables"
    }

    /// Whether granted consumables are consumed at Google (off unless the app asked for it).
    var consumesConsumables: Bool { consumeConsumables ?? false }

    var view: GoogleCredentialsView {
        GoogleCredentialsView(
            packageName: packageName, serviceAccountEmail: serviceAccount.clientEmail,
            tokenURI: serviceAccount.tokenUri, environments: environments, pushTokenSet: pushToken != nil,
            consumeConsumables: consumesConsumables)
    }
}

/// The Google credentials without their secrets.
struct GoogleCredentialsView: Codable, Sendable, Equatable {
    var packageName: String
    var serviceAccountEmail: String
    var tokenURI: String
    var environments: [StoreEnvironment]
    var pushTokenSet: Bool
    var consumeConsumables: Bool

    enum CodingKeys: String, CodingKey {
        case environments
        case packageName = "package_name"
        case serviceAccountEmail = "service_account_email"
        case tokenURI = "token_uri"
        case pushTokenSet = "push_token_set"
        case consumeConsumables = "consume_consumables"
    }
}
