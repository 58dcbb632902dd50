import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores
import _CryptoExtras

/// The body of `PUT /v1/admin/stores/google`: the package name and the service account's JSON key
/// exactly as Google Cloud hands it out.
struct GoogleCredentialsInput: Codable, Sendable {
    var packageName: String
    var serviceAccount: GoogleServiceAccountKey
    var environments: [StoreEnvironment]?
    /// A secret for the Pub/Sub push URL (`/v1/notifications/google?token=...`), 24-256 URL-safe characters.
    var pushToken: String?
    /// Consume consumable purchases at Google once granted, so they can be bought again (default `false`).
    var consumeConsumables: Bool?

    enum CodingKeys: String, CodingKey {
        case environments
        case packageName = "package_name"
        case serviceAccount = "service_account"
        case pushToken = "push_token"
        case consumeConsumables = "consume_consumables"
    }

    /// The bytes a push token may hold.
    static let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)

    func credentials(requiredTokenURI: String?) throws(RequestError) -> GoogleCredentials {
        var problems: [FieldProblem] = []
        if packageName.isEmpty || packageName.count > 255 {
            problems.append(FieldProblem(pointer: "/package_name", detail: "must be 1 to 255 characters"))
        }
        if serviceAccount.type != "service_account" {
            problems.append(FieldProblem(pointer: "/service_account/type", detail: "must be service_account"))
        }
        if serviceAccount.clientEmail.isEmpty {
            problems.append(FieldProblem(pointer: "/service_account/client_email", detail: "must not be empty"))
        }
        if (try? _RSA.Signing.PrivateKey(pemRepresentation: serviceAccount.privateKey)) == nil {
            problems.append(
                FieldProblem(pointer: "/service_account/private_key", detail: "must be the account's RSA key (PEM)"))
        }
        if let requiredTokenURI, serviceAccount.tokenUri != requiredTokenURI {
            problems.append(
                FieldProblem(pointer: "/service_account/token_uri", detail: "must be \(requiredTokenURI) in production")
            )
        } else if (try? EnvironmentReader.parseHTTPURL(serviceAccount.tokenUri, variable: "token_uri")) == nil {
            problems.append(FieldProblem(pointer: "/service_account/token_uri", detail: "must be an http(s) URL"))
        }
        if let environments, environments.isEmpty {
            problems.append(FieldProblem(pointer: "/environments", detail: "must name at least one environment"))
        }
        if let environments, !environments.allSatisfy(StoreEnvironment.storeEnvironments.contains) {
            problems.append(FieldProblem(pointer: "/environments", detail: "must name production or sandbox"))
        }
        if let pushToken,
            !(24...256).contains(pushToken.utf8.count)
                || !pushToken.utf8.allSatisfy({ Self.urlSafe.contains($0) })
        {
            problems.append(
                FieldProblem(pointer: "/push_token", detail: "must be 24 to 256 characters of A-Z a-z 0-9 - _ ."))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
        return GoogleCredentials(
            packageName: packageName, serviceAccount: serviceAccount,
            environments: environments ?? [.production, .sandbox], pushToken: pushToken,
            consumeConsumables: consumeConsumables ?? false)
    }
}
