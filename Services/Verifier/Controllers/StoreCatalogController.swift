import Hummingbird
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/stores/{store}/catalog`: what the store sells for the calling app (secret key, signed by the
/// gateway), read with the app's sealed App Store Connect API key, and which of those store products have recorded
/// purchases. The gateway hands it to the catalog service's sync; the key never leaves the verifier.
struct StoreCatalogController {
    let credentials: any CredentialsRepository
    let client: AppStoreConnectClient
    let database: PostgresClient

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("/internal/v1/stores/{store}/catalog") { _, context in
                let caller = try context.requireSecretCaller()
                guard context.parameters.get("store") == CredentialStore.apple.rawValue else {
                    throw RequestError.notFound
                }
                guard let apple = try await credentials.apple(appID: caller.appID) else {
                    throw VerifierError.storeNotConfigured(.apple)
                }
                guard let key = apple.connectAPIKey else { throw VerifierError.connectKeyNotConfigured }
                let products = try await client.catalog(bundleID: apple.bundleID, key: key)
                return try JSONBody.response(
                    StoreCatalog(
                        platform: .appStore, products: products,
                        purchasedStoreProductIDs: try await purchased(appID: caller.appID, logger: context.logger)))
            }
    }

    /// Every App Store product id the app has recorded transactions of: the store may have deleted some of them.
    private func purchased(appID: String, logger: Logger) async throws -> [String] {
        let rows = try await database.query(
            """
            SELECT DISTINCT store_product_id FROM verifier.transactions
            WHERE app_id = \(appID) AND store = \(StorePlatform.appStore.rawValue)
            ORDER BY store_product_id
            """, logger: logger)
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }
}
