import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The operator API (`/operator/v1`): apps and their keys, for whoever runs this Shopkeeper.
struct OperatorController {
    let repository: any AppRepository
    let keys: KeyIssuer
    let boundaries: CustomerBoundaryAdmin
    let maxBodyBytes: Int

    var endpoints: RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.post("apps") { request, _ in
            let body = try await JSONBody.decode(CreateAppRequest.self, from: request, limit: maxBodyBytes)
            let name = body.name.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(name.count) else {
                throw RequestError.invalid("/name", "must be 1-200 characters")
            }
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
            try JSONBody.response(
                APIKeyList(keys: try await repository.keys(appID: try context.parameters.require("app_id"))))
        }
        routes.delete("apps/:app_id/keys/:key_id") { _, context in
            let appID = try context.parameters.require("app_id")
            let keyID = try context.parameters.require("key_id")
            return try JSONBody.response(try await keys.revoke(appID: appID, keyID: keyID))
        }
        routes.get("apps/:app_id/customer-boundary") { _, context in
            try JSONBody.response(try await boundaries.boundary(appID: try context.parameters.require("app_id")))
        }
        routes.put("apps/:app_id/customer-boundary") { request, context in
            let appID = try context.parameters.require("app_id")
            let body = try await JSONBody.decode(SetCustomerBoundaryRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await boundaries.setMode(appID: appID, request: body, requestID: context.requestID))
        }
        routes.post("apps/:app_id/customer-boundary/secrets") { _, context in
            let appID = try context.parameters.require("app_id")
            return try JSONBody.response(try await boundaries.createSecret(appID: appID), status: .created)
        }
        routes.delete("apps/:app_id/customer-boundary/secrets/:secret_id") { _, context in
            let appID = try context.parameters.require("app_id")
            let secretID = try context.parameters.require("secret_id")
            return try JSONBody.response(try await boundaries.revokeSecret(appID: appID, secretID: secretID))
        }
        routes.post("apps/:app_id/customer-boundary/public-keys") { request, context in
            let appID = try context.parameters.require("app_id")
            let body = try await JSONBody.decode(
                RegisterCustomerTokenPublicKeyRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await boundaries.registerPublicKey(appID: appID, request: body), status: .created)
        }
        routes.delete("apps/:app_id/customer-boundary/public-keys/:key_id") { _, context in
            let appID = try context.parameters.require("app_id")
            let keyID = try context.parameters.require("key_id")
            return try JSONBody.response(try await boundaries.revokePublicKey(appID: appID, keyID: keyID))
        }
        return routes
    }
}
