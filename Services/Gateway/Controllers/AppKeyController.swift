import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/keys`: a secret key manages its own app's keys.
struct AppKeyController {
    let repository: any AppRepository
    let keys: KeyIssuer
    let maxBodyBytes: Int

    var endpoints: RouteCollection<AuthenticatedContext> {
        let routes = RouteCollection(context: AuthenticatedContext.self)
        routes.get { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(APIKeyList(keys: try await repository.keys(appID: appID)))
        }
        routes.post { request, context in
            let appID = try context.secretKeyApp()
            let body = try await JSONBody.decode(CreateKeyRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(try await keys.create(appID: appID, request: body), status: .created)
        }
        routes.delete(":key_id") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(
                try await keys.revoke(appID: appID, keyID: try context.parameters.require("key_id")))
        }
        return routes
    }
}
