import Foundation
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperCustomerTokens
import ShopkeeperHTTP
import ShopkeeperModels

/// Switches an app's customer boundary and creates and revokes its customer token secrets; shared by the app's own
/// admin endpoints and the operator API. Every change drops this replica's remembered keys, so it applies here at
/// once (and on other replicas within `SHOPKEEPER_KEY_CACHE_SECONDS`).
///
/// Switching to `signed` first suspends the ids the app's public key linked to customers while it was `open`
/// (``EntitlementsClient/suspendPublicLinks(appID:requestID:)``): nobody proved them, so a token for one must not
/// reach a customer it was attached to. Then the mode changes, then the suspension runs once more for links that
/// landed in between. Nothing switches when the first suspension fails (`503`), so the call is safe to repeat.
struct CustomerBoundaryAdmin: Sendable {
    let repository: any AppRepository
    let authenticator: APIKeyAuthenticator
    /// The entitlements service, which owns the links; `nil` in a gateway without one (no links to suspend).
    var entitlements: EntitlementsClient?

    func boundary(appID: String) async throws -> CustomerBoundary {
        try await repository.customerBoundary(appID: appID)
    }

    func setMode(appID: String, request: SetCustomerBoundaryRequest, requestID: String?) async throws
        -> CustomerBoundary
    {
        let signs = request.mode == .signed
        if signs { try await suspendPublicLinks(appID: appID, requestID: requestID) }
        let boundary = try await authenticator.invalidatingAll {
            try await repository.setCustomerBoundary(appID: appID, mode: request.mode)
        }
        if signs { try await suspendPublicLinks(appID: appID, requestID: requestID) }
        return boundary
    }

    private func suspendPublicLinks(appID: String, requestID: String?) async throws {
        guard let entitlements else { return }
        do {
            _ = try await entitlements.suspendPublicLinks(appID: appID, requestID: requestID)
        } catch let problem as RemoteProblem {
            throw problem
        } catch {
            throw GatewayError.upstreamUnavailable(service: "entitlements")
        }
    }

    /// A new random secret (`cts_` and 43 base-62 characters, about 256 bits), stored sealed, shown only here.
    func createSecret(appID: String) async throws -> CreatedCustomerTokenSecret {
        let secret = CustomerTokenSecret(
            id: RandomToken.identifier(prefix: "ctk", length: 16),
            secret: CustomerTokenSecret.textPrefix + RandomToken.base62(length: 43))
        let info = try await authenticator.invalidatingAll {
            try await repository.createTokenSecret(appID: appID, secret: secret)
        }
        return CreatedCustomerTokenSecret(secretID: info.secretID, secret: secret.secret, createdAt: info.createdAt)
    }

    func revokeSecret(appID: String, secretID: String) async throws -> CustomerTokenSecretInfo {
        try await authenticator.invalidatingAll {
            try await repository.revokeTokenSecret(appID: appID, secretID: secretID)
        }
    }

    /// Registers a P-256 public key (ES256): the app's server signs tokens with its private key.
    func registerPublicKey(appID: String, request: RegisterCustomerTokenPublicKeyRequest) async throws
        -> CustomerTokenPublicKeyInfo
    {
        let pem = request.publicKey.trimmingCharacters(in: .whitespacesAndNewlines)
        guard pem.utf8.count <= 4096, CustomerTokenPublicKey.isValid(pem: pem) else {
            throw RequestError.invalid("/public_key", "must be a P-256 public key in PEM (-----BEGIN PUBLIC KEY-----)")
        }
        let key = CustomerTokenPublicKey(id: RandomToken.identifier(prefix: "cpk", length: 16), pem: pem)
        return try await authenticator.invalidatingAll {
            try await repository.registerTokenPublicKey(appID: appID, key: key)
        }
    }

    func revokePublicKey(appID: String, keyID: String) async throws -> CustomerTokenPublicKeyInfo {
        try await authenticator.invalidatingAll {
            try await repository.revokeTokenPublicKey(appID: appID, keyID: keyID)
        }
    }
}
