import HummingbirdTesting
import NIOCore
import ShopkeeperModels

extension TestClientProtocol {
    /// `PUT /v1/admin/catalog` with `products`, signed for `appID` as the gateway sends it (to a live catalog service).
    package func importCatalog(_ products: [Product], appID: String) async throws -> TestResponse {
        let path = "/v1/admin/catalog"
        let json = try TestJSON.encode(CatalogDocument(products: products))
        return try await execute(
            uri: path, method: .put, headers: .signed(.put, path, appID: appID, body: json),
            body: ByteBuffer(bytes: json))
    }
}
