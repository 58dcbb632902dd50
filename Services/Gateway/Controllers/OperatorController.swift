import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The operator API (`/operator/v1`): apps and their keys, for whoever runs this Shopkeeper.
struct OperatorController {
    let repository: any AppRepository
    let keys: KeyIssuer
    let maxBodyBytes: Int

    var endpoints: RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.post("apps") { request, _ in
            let body = try await JSONBody.decode(CreateAppRequest.self, from: request, limit: maxBodyBytes)
            let name = body.name.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(name.count) else { throw RequestError.invalid("/name", "must be 1-200 characters") }
            return try JSONBody.response(try await repository.createApp(name: name), status: .created)
        }
        routes.get("apps") { _, _ in
            try JSONBody.response(AppList(apps: try await repository.apps()))
        }
        routes.get("apps/:app_id") { _, context in
            try JSONBody.response(try await repository.app(appID: try context.parameters.require("app_id")))
        }
        routes.post("apps/:app_id/keys") { request, context in
            let appID = try context.parameters.require("app_id")
            let body = try await JSONBody.decode(CreateKeyRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(try await keys.create(appID: appID, request: body), status: .created)
        }
        routes.get("apps/:app_id/keys") { _, context in
            try JSONBody.response(APIKeyList(keys: try await repository.keys(appID: try context.parameters.require("app_id"))))
        }
        routes.delete("apps/:app_id/keys/:key_id") { _, context in
            let appID = try context.parameters.require("app_id")
            let keyID = try context.parameters.require("key_id")
            return try JSONBody.response(try await keys.revoke(appID: appID, keyID: keyID))
        }
        return routes
    }
}

/// `/v1/admin/keys`: a secret key manages its own app's keys.
struct AppKeyController {
    let repository: any AppRepository
    let keys: KeyIssuer
    let maxBodyBytes: Int

    var endpoints: RouteCollection<AuthenticatedContext> {
        let routes = RouteCollection(context: AuthenticatedContext.self)
        routes.get { _, context in
            let appID = try Self.secretApp(context)
            return try JSONBody.response(APIKeyList(keys: try await repository.keys(appID: appID)))
        }
        routes.post { request, context in
            let appID = try Self.secretApp(context)
            let body = try await JSONBody.decode(CreateKeyRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(try await keys.create(appID: appID, request: body), status: .created)
        }
        routes.delete(":key_id") { _, context in
            let appID = try Self.secretApp(context)
            return try JSONBody.response(try await keys.revoke(appID: appID, keyID: try context.parameters.require("key_id")))
        }
        return routes
    }

    private static func secretApp(_ context: AuthenticatedContext) throws(AuthError) -> String {
        guard context.identity.kind == .secret else { throw AuthError.secretKeyRequired }
        return context.identity.appID
    }
}

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
        let info = try await repository.revokeKey(appID: appID, keyID: keyID)
        authenticator.invalidateAll()
        return info
    }
}
