import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/answer-signing`: a secret key lists its app's answer signing keys, creates one, activates one and
/// retires one (``AnswerSigningAdmin``).
struct AnswerSigningController {
    let admin: AnswerSigningAdmin

    var endpoints: RouteCollection<AuthenticatedContext> {
        let routes = RouteCollection(context: AuthenticatedContext.self)
        routes.get { _, context in
            try JSONBody.response(try await admin.signing(appID: try context.secretKeyApp()))
        }
        routes.post("keys") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(try await admin.createKey(appID: appID), status: .created)
        }
        routes.post("keys/:key_id/activate") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(
                try await admin.activateKey(appID: appID, keyID: try context.parameters.require("key_id")))
        }
        routes.delete("keys/:key_id") { _, context in
            let appID = try context.secretKeyApp()
            return try JSONBody.response(
                try await admin.retireKey(appID: appID, keyID: try context.parameters.require("key_id")))
        }
        return routes
    }
}
