import Logging
import PostgresNIO
import ShopkeeperModels

/// The catalog's Stripe prices, read from the views the catalog publishes for other services
/// (`catalog.products_v1`, `catalog.store_products_v1`).
struct StripeCatalog: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A catalog product as sold through Stripe.
    struct Price: Sendable, Equatable {
        var priceID: String
        var type: ProductType
    }

    /// The Stripe price of `productID`, if the product has one and is for sale (approved and cleared for sale).
    func price(of productID: String, appID: String) async throws -> Price? {
        let rows = try await client.query(
            """
            SELECT s.store_product_id, p.type FROM catalog.store_products_v1 s
            JOIN catalog.products_v1 p ON p.app_id = s.app_id AND p.product_id = s.product_id
            WHERE s.app_id = \(appID) AND s.product_id = \(productID) AND s.platform = 'stripe'
              AND p.review_state = 'approved' AND p.cleared_for_sale
            """,
            logger: logger)
        for try await (price, type) in rows.decode((String, String).self) {
            guard let type = ProductType(rawValue: type) else { return nil }
            return Price(priceID: price, type: type)
        }
        return nil
    }
}
