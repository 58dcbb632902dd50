import Hummingbird
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// `POST /internal/v1/stores/{store}/catalog`: what the store sells for the calling app (secret key, signed by the
/// gateway), and which of those store products have recorded purchases. `apple`: read with the app's sealed App Store
/// Connect API key; `google`: read from the Android Publisher API's monetization endpoints with the app's service
/// account (the credentials Play purchases are checked with). The gateway hands it to the catalog service's sync;
/// the credentials never leave the verifier.
struct StoreCatalogController {
    let credentials: any CredentialsRepository
    let client: AppStoreConnectClient
    let google: GooglePlayClient
    let database: PostgresClient

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("/internal/v1/stores/{store}/catalog") { _, context in
                let caller = try context.requireSecretCaller()
                let platform: StorePlatform
                let products: [StoreCatalogProduct]
                switch context.parameters.get("store") {
                case CredentialStore.apple.rawValue:
                    guard let apple = try await credentials.apple(appID: caller.appID) else {
                        throw VerifierError.storeNotConfigured(.apple)
                    }
                    guard let key = apple.connectAPIKey else { throw VerifierError.connectKeyNotConfigured }
                    platform = .appStore
                    products = try await client.catalog(bundleID: apple.bundleID, key: key)
                case CredentialStore.google.rawValue:
                    guard let play = try await credentials.google(appID: caller.appID) else {
                        throw VerifierError.storeNotConfigured(.google)
                    }
                    platform = .playStore
                    products = try await google.catalog(credentials: play)
                default:
                    throw RequestError.notFound
                }
                return try JSONBody.response(
                    StoreCatalog(
                        platform: platform, products: products,
                        purchasedStoreProductIDs: try await purchased(
                            appID: caller.appID, platform: platform, logger: context.logger)))
            }
    }

    /// Every product id of `platform` the app has recorded transactions of: the store may have deleted some of them.
    private func purchased(appID: String, platform: StorePlatform, logger: Logger) async throws -> [String] {
        let rows = try await database.query(
            """
            SELECT DISTINCT store_product_id FROM verifier.transactions
            WHERE app_id = \(appID) AND store = \(platform.rawValue)
            ORDER BY store_product_id
            """, logger: logger)
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
    }
}
