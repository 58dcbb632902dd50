import Foundation
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `POST /sandbox/apple/app-transactions`: the app transaction of a customer (made the first time).
struct CreateAppleAppTransactionRequest: Decodable, Sendable {
    var bundleId: String
    /// The buyer (a UUID): the customer whose transactions carry the same `appTransactionId`.
    var appAccountToken: String
    /// `Sandbox` (default) or `Production`.
    var environment: String?
    var appAppleId: Int64?
    /// The version the customer first got (default `1.0`); kept from the first request on.
    var originalApplicationVersion: String?
    /// The version the customer has now (default: the original one).
    var applicationVersion: String?
    var originalPurchaseDate: Date?
    var preorderDate: Date?
    /// `iOS` (default), `macOS`, `tvOS` or `visionOS`.
    var originalPlatform: String?

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case appAccountToken = "app_account_token"
        case environment
        case appAppleId = "app_apple_id"
        case originalApplicationVersion = "original_application_version"
        case applicationVersion = "application_version"
        case originalPurchaseDate = "original_purchase_date"
        case preorderDate = "preorder_date"
        case originalPlatform = "original_platform"
    }

    /// Checks every field and reports every problem at once.
    func draft() throws(RequestError) -> AppleAppTransactionDraft {
        var problems: [FieldProblem] = []
        func check(_ ok: Bool, _ pointer: String, _ detail: String) {
            if !ok { problems.append(FieldProblem(pointer: pointer, detail: detail)) }
        }
        check(
            CreateAppleTransactionRequest.isIdentifier(bundleId), "/bundle_id",
            "must be a bundle id such as com.example.app")
        let token = UUID(uuidString: appAccountToken)
        check(token != nil, "/app_account_token", "must be a UUID")
        let appleEnvironment = AppleEnvironment(rawValue: environment ?? "Sandbox")
        check(
            appleEnvironment == .sandbox || appleEnvironment == .production, "/environment",
            "must be Sandbox or Production")
        for (pointer, version) in [
            ("/original_application_version", originalApplicationVersion), ("/application_version", applicationVersion),
        ] {
            check(
                version.map(CreateAppleTransactionRequest.isVersion) ?? true, pointer,
                "must be a version such as 1.0 or 42")
        }
        check(
            originalPlatform.map { ApplePurchasePlatform(rawValue: $0) != nil } ?? true, "/original_platform",
            "must be one of " + ApplePurchasePlatform.allCases.map(\.rawValue).joined(separator: ", "))
        guard problems.isEmpty, let token, let appleEnvironment else { throw .validationFailed(problems) }
        return AppleAppTransactionDraft(
            bundleId: bundleId, environment: appleEnvironment, appAccountToken: token.uuidString.lowercased(),
            appAppleId: appAppleId ?? AppleAppIdentity.appAppleId(bundleId: bundleId),
            originalApplicationVersion: originalApplicationVersion,
            applicationVersion: applicationVersion, originalPurchaseDate: originalPurchaseDate,
            preorderDate: preorderDate, originalPlatform: originalPlatform)
    }
}

/// The answer of `POST /sandbox/apple/app-transactions`: the app transaction, signed now.
struct AppleAppTransactionCreated: Codable, Sendable {
    var appTransactionId: String
    var bundleId: String
    var environment: String
    var appAccountToken: String
    var originalApplicationVersion: String
    var applicationVersion: String
    var originalPurchaseDate: Date
    /// StoreKit 2's `AppTransaction` JWS (what `AppTransaction.shared` gives the app), signed with the sandbox chain.
    var signedAppTransaction: String

    enum CodingKeys: String, CodingKey {
        case appTransactionId = "app_transaction_id"
        case bundleId = "bundle_id"
        case environment
        case appAccountToken = "app_account_token"
        case originalApplicationVersion = "original_application_version"
        case applicationVersion = "application_version"
        case originalPurchaseDate = "original_purchase_date"
        case signedAppTransaction = "signed_app_transaction"
    }

    init(_ record: AppleAppTransactionRecord, signed: String) {
        appTransactionId = record.appTransactionId
        bundleId = record.bundleId
        environment = record.environment.rawValue
        appAccountToken = record.appAccountToken
        originalApplicationVersion = record.originalApplicationVersion
        applicationVersion = record.applicationVersion
        originalPurchaseDate = Date(appleMilliseconds: record.originalPurchaseDate)
        signedAppTransaction = signed
    }
}

/// `POST /sandbox/notifications/apple/rescind-consent`: the customer withdrew consent; the notification carries
/// their app transaction (made with defaults when they have none yet).
struct RescindConsentRequest: Decodable, Sendable {
    var bundleId: String
    var appAccountToken: String
    var environment: String?
    /// The app's Apple ID, for an app transaction made now (default: one derived from the bundle id).
    var appAppleId: Int64?

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case appAccountToken = "app_account_token"
        case environment
        case appAppleId = "app_apple_id"
    }
}

/// `POST /sandbox/notifications/apple/external-purchase-token`: an `EXTERNAL_PURCHASE_TOKEN` notification
/// (subtype `UNREPORTED`) about an external purchase token.
struct ExternalPurchaseTokenRequest: Decodable, Sendable {
    var bundleId: String
    var appAppleId: Int64?
    /// `Sandbox` (default: the id starts with `SANDBOX`) or `Production`.
    var environment: String?
    /// Made when absent (`SANDBOX_` and a UUID in the sandbox environment).
    var externalPurchaseId: String?
    var tokenCreationDate: Date?

    enum CodingKeys: String, CodingKey {
        case bundleId = "bundle_id"
        case appAppleId = "app_apple_id"
        case environment
        case externalPurchaseId = "external_purchase_id"
        case tokenCreationDate = "token_creation_date"
    }

    /// The token to send and its environment.
    func token(now: Date = Date()) throws(RequestError) -> (
        AppleNotificationPayload.ExternalPurchaseToken, AppleEnvironment
    ) {
        var problems: [FieldProblem] = []
        if !CreateAppleTransactionRequest.isIdentifier(bundleId) {
            problems.append(FieldProblem(pointer: "/bundle_id", detail: "must be a bundle id such as com.example.app"))
        }
        let appleEnvironment = AppleEnvironment(rawValue: environment ?? "Sandbox")
        if appleEnvironment != .sandbox && appleEnvironment != .production {
            problems.append(FieldProblem(pointer: "/environment", detail: "must be Sandbox or Production"))
        }
        let id = externalPurchaseId ?? ((appleEnvironment == .sandbox ? "SANDBOX_" : "") + UUID().uuidString)
        // Apple tells the environment by the id alone: a sandbox token's id starts with SANDBOX, no other does.
        if !(1...128).contains(id.utf8.count) || id.hasPrefix("SANDBOX") != (appleEnvironment == .sandbox) {
            problems.append(
                FieldProblem(
                    pointer: "/external_purchase_id",
                    detail: "must be 1 to 128 characters, starting with SANDBOX exactly when the environment is Sandbox"
                ))
        }
        guard problems.isEmpty, let appleEnvironment else { throw .validationFailed(problems) }
        let token = AppleNotificationPayload.ExternalPurchaseToken(
            externalPurchaseId: id, tokenCreationDate: (tokenCreationDate ?? now).appleMilliseconds,
            appAppleId: appAppleId ?? AppleAppIdentity.appAppleId(bundleId: bundleId), bundleId: bundleId)
        return (token, appleEnvironment)
    }
}
