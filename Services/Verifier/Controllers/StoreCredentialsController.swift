import Crypto
import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores
import X509

/// `/v1/admin/stores`: an app's store credentials (secret key). Secrets go in, never come out.
struct StoreCredentialsController {
    let repository: any CredentialsRepository
    let maxBodyBytes: Int
    /// In production, service accounts must use Google's own token endpoint; `nil` accepts any (development).
    let requiredGoogleTokenURI: String?
    /// Whether live Stripe keys are accepted: only when the verifier talks to Stripe's own API.
    let stripeLiveKeysAllowed: Bool

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            let apple = try await repository.apple(appID: caller.appID)
            let google = try await repository.google(appID: caller.appID)
            let stripe = try await repository.stripe(appID: caller.appID)
            return try JSONBody.response(StoresView(apple: apple?.view, google: google?.view, stripe: stripe?.view))
        }
        routes.put(":store") { request, context in
            let caller = try context.requireSecretCaller()
            switch try Self.store(context) {
            case .apple:
                let input = try await JSONBody.decode(AppleCredentialsInput.self, from: request, limit: maxBodyBytes)
                let existing: AppleCredentials?
                do {
                    existing = try await repository.apple(appID: caller.appID)
                } catch VerifierError.credentialsUnreadable {
                    // Credentials sealed under a lost master key are replaced whole by this PUT.
                    existing = nil
                }
                let credentials = try input.credentials(keeping: existing)
                try await repository.saveApple(credentials, appID: caller.appID)
                return try JSONBody.response(credentials.view)
            case .google:
                let input = try await JSONBody.decode(GoogleCredentialsInput.self, from: request, limit: maxBodyBytes)
                let credentials = try input.credentials(requiredTokenURI: requiredGoogleTokenURI)
                try await repository.saveGoogle(credentials, appID: caller.appID)
                return try JSONBody.response(credentials.view)
            case .stripe:
                let input = try await JSONBody.decode(StripeCredentialsInput.self, from: request, limit: maxBodyBytes)
                let existing: StripeCredentials?
                do {
                    existing = try await repository.stripe(appID: caller.appID)
                } catch VerifierError.credentialsUnreadable {
                    existing = nil
                }
                let credentials = try input.credentials(keeping: existing, liveKeysAllowed: stripeLiveKeysAllowed)
                try await repository.saveStripe(credentials, appID: caller.appID)
                return try JSONBody.response(credentials.view)
            }
        }
        routes.delete(":store") { _, context in
            let caller = try context.requireSecretCaller()
            let store = try Self.store(context)
            guard try await repository.delete(store: store, appID: caller.appID) else {
                throw VerifierError.credentialsNotFound(store)
            }
            return Response(status: .noContent)
        }
        return routes
    }

    /// The store named by the path (`apple`, `google` or `stripe`).
    private static func store(_ context: ServiceRequestContext) throws -> CredentialStore {
        guard let store = CredentialStore(rawValue: try context.parameters.require("store")) else {
            throw RequestError.notFound
        }
        return store
    }
}

/// `GET /v1/admin/stores`.
struct StoresView: Codable, Sendable {
    var apple: AppleCredentialsView?
    var google: GoogleCredentialsView?
    var stripe: StripeCredentialsView?
}

/// The body of `PUT /v1/admin/stores/apple`. Omitted secrets keep their stored values, so a change of
/// bundle id does not require pasting the shared secret again; `null` is the same as omitted.
struct AppleCredentialsInput: Codable, Sendable {
    var bundleID: String
    var appAppleID: Int64?
    var environments: [StoreEnvironment]?
    var sharedSecret: String?
    var apiKey: AppStoreAPIKey?
    var consumptionAnswers: ConsumptionAnswers?
    /// Xcode's StoreKit test certificate, PEM or base64 DER (the `.cer` file).
    var storeKitTestCertificate: String?
    /// Accept `Xcode` and `LocalTesting` data unverified, as Apple's library does (development mode only).
    var acceptLocalTesting: Bool?
    /// Variant name -> bundle id of each other edition of the app whose app transactions count.
    var variantBundleIDs: [String: String]?
    /// The App Store Connect API (team) key the catalog sync reads the store's catalog with.
    var connectAPIKey: AppStoreAPIKey?

    /// The stored credentials' field names: the body names each field as it is stored.
    typealias CodingKeys = AppleCredentials.CodingKeys

    func credentials(keeping existing: AppleCredentials?) throws(RequestError) -> AppleCredentials {
        var problems: [FieldProblem] = []
        if bundleID.isEmpty || bundleID.count > 255 {
            problems.append(FieldProblem(pointer: "/bundle_id", detail: "must be 1 to 255 characters"))
        }
        if let appAppleID, appAppleID <= 0 {
            problems.append(FieldProblem(pointer: "/app_apple_id", detail: "must be a positive number"))
        }
        if let environments, environments.isEmpty {
            problems.append(FieldProblem(pointer: "/environments", detail: "must name at least one environment"))
        }
        if let environments, !environments.allSatisfy(StoreEnvironment.storeEnvironments.contains) {
            problems.append(
                FieldProblem(
                    pointer: "/environments",
                    detail: "must name production or sandbox (Xcode proofs follow storekit_test_certificate)"))
        }
        var testCertificate: String?
        if let text = storeKitTestCertificate {
            if let certificate = StoreKitTestVerifier.certificate(pemOrBase64DER: text),
                P256.Signing.PublicKey(certificate.publicKey) != nil,
                let pem = try? certificate.serializeAsPEM().pemString
            {
                testCertificate = pem
            } else {
                problems.append(
                    FieldProblem(
                        pointer: "/storekit_test_certificate",
                        detail: "must be Xcode's StoreKit test certificate (P-256), as PEM or base64 of the .cer file"))
            }
        }
        if acceptLocalTesting == true, (environments ?? [.production, .sandbox]).contains(.production) {
            problems.append(
                FieldProblem(
                    pointer: "/accept_local_testing",
                    detail: "is only for an app in development mode: environments must not name production"))
        }
        let variantName = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        for (variant, bundle) in (variantBundleIDs ?? [:]).sorted(by: { $0.key < $1.key }) {
            if variant.isEmpty || variant.count > 64 || !variant.allSatisfy(variantName.contains) {
                problems.append(
                    FieldProblem(
                        pointer: "/variant_bundle_ids",
                        detail: "variant names are 1-64 letters, digits, '.', '_' or '-'"))
            }
            if bundle.isEmpty || bundle.count > 255 || bundle == bundleID {
                problems.append(
                    FieldProblem(
                        pointer: "/variant_bundle_ids/\(variant)",
                        detail: "must be 1 to 255 characters and another bundle id than the app's"))
            }
        }
        if let sharedSecret, sharedSecret.isEmpty {
            problems.append(FieldProblem(pointer: "/shared_secret", detail: "must not be empty"))
        }
        for (key, field) in [(apiKey, "api_key"), (connectAPIKey, "connect_api_key")] {
            guard let key else { continue }
            if key.issuerID.isEmpty {
                problems.append(FieldProblem(pointer: "/\(field)/issuer_id", detail: "must not be empty"))
            }
            if key.keyID.isEmpty {
                problems.append(FieldProblem(pointer: "/\(field)/key_id", detail: "must not be empty"))
            }
            if (try? P256.Signing.PrivateKey(pemRepresentation: key.privateKey)) == nil {
                problems.append(
                    FieldProblem(
                        pointer: "/\(field)/private_key", detail: "must be the P-256 key of the .p8 file (PEM)")
                )
            }
        }
        if let preference = consumptionAnswers?.refundPreference,
            !ConsumptionAnswers.refundPreferences.contains(preference)
        {
            problems.append(
                FieldProblem(
                    pointer: "/consumption_answers/refund_preference",
                    detail: "must be one of \(ConsumptionAnswers.refundPreferences.joined(separator: ", ")) or null"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return AppleCredentials(
            bundleID: bundleID,
            appAppleID: appAppleID,
            environments: environments ?? [.production, .sandbox],
            sharedSecret: sharedSecret ?? existing?.sharedSecret,
            apiKey: apiKey ?? existing?.apiKey,
            consumptionAnswers: consumptionAnswers,
            storeKitTestCertificate: testCertificate,
            acceptLocalTesting: acceptLocalTesting == true ? true : nil,
            variantBundleIDs: variantBundleIDs,
            connectAPIKey: connectAPIKey ?? existing?.connectAPIKey
        )
    }
}
