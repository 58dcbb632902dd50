import ShopkeeperHTTP
import ShopkeeperModels

/// Creates and revokes keys; shared by the operator and app key endpoints.
struct KeyIssuer: Sendable {
    let repository: any AppRepository
    let authenticator: APIKeyAuthenticator

    func create(appID: String, request: CreateKeyRequest) async throws -> CreatedAPIKey {
        if let label = request.label, label.count > 200 {
            throw RequestError.invalid("/label", "must be at most 200 characters")
        }
        let key = APIKey.generate(kind: request.kind)
        let info = try await repository.createKey(
            appID: appID,
            kind: request.kind,
            label: request.label,
            keyHash: APIKey.hash(key),
            prefix: APIKey.displayPrefix(key)
        )
        return CreatedAPIKey(info: info, key: key)
    }

    func revoke(appID: String, keyID: String) async throws -> APIKeyInfo {
        try await authenticator.invalidatingAll { try await repository.revokeKey(appID: appID, keyID: keyID) }
    }
}
