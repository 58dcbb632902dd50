import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `DELETE /v1/admin/purchases/{store}/{original_transaction_id}/devices`: forgets the devices that presented a
/// purchase, so a customer who reached the device limit honestly can go on (secret key).
struct PurchaseDeviceController {
    let devices: any PurchaseDeviceRepository

    /// The answer: how many device bindings were removed.
    struct Cleared: Encodable {
        var cleared: Int
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .delete(":store/:original_transaction_id/devices", use: clear)
    }

    @Sendable func clear(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireSecretCaller()
        let original = try context.parameters.require("original_transaction_id")
        // A store that does not exist has no purchases: 404 like an unknown transaction.
        guard let store = StorePlatform(rawValue: try context.parameters.require("store")) else {
            throw EntitlementsError.purchaseNotFound(original)
        }
        let cleared = try await devices.clearDevices(
            store: store, originalTransactionID: original, appID: caller.appID)
        return try JSONBody.response(Cleared(cleared: cleared), headers: [.cacheControl: "no-store"])
    }
}
