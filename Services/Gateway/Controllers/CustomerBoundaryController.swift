import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/customer-boundary`: a secret key reads and switches its own app's customer boundary, creates (shown
/// once) and revokes its customer token secrets, and registers and revokes its public keys.
struct CustomerBoundaryController {
    let admin: CustomerBoundaryAdmin
    let maxBodyBytes: Int

    var endpoints: RouteCollection<AuthenticatedContext> {
        let routes = RouteCollection(context: AuthenticatedContext.self)
        routes.get { _, context in
            try JSONBody.response(try await admin.boundary(appID: try context.secretKeyApp()))
        }
        routes.put { request, context in
            let appID = try context.secretKeyApp()
            let body = try await JSONBody.decode(SetCustomerBoundaryRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await admin.setMode(appID: appID, request: body, requestID: context.requestID))
        }
        routes.post("secrets") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(try await admin.createSecret(appID: appID), status: .created)
        }
        routes.delete("secrets/:secret_id") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(
                try await admin.revokeSecret(appID: appID, secretID: try context.parameters.require("secret_id")))
        }
        routes.post("public-keys") { request, context in
            let appID = try context.secretKeyApp()
            let body = try await JSONBody.decode(
                RegisterCustomerTokenPublicKeyRequest.self, from: request, limit: maxBodyBytes)
            return try JSONBody.response(
                try await admin.registerPublicKey(appID: appID, request: body), status: .created)
        }
        routes.delete("public-keys/:key_id") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(
                try await admin.revokePublicKey(appID: appID, keyID: try context.parameters.require("key_id")))
        }
        return routes
    }
}
