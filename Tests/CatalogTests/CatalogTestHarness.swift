import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Catalog

/// Runs a live catalog service on the test database and gives tests a way to call it as the gateway would.
struct CatalogHarness {
    let client: any TestClientProtocol
    let appID: String

    static func run(
        appID: String = TestEnvironment.uniqueAppID(),
        environment: [String: String] = [:],
        _ body: @Sendable (CatalogHarness) async throws -> Void
    ) async throws {
        let settings = try CatalogSettings.read(from: TestEnvironment.reader(environment))
        let app = try await buildApplication(settings: settings)
        try await app.testLive { client in
            try await body(CatalogHarness(client: client, appID: appID))
        }
    }

    /// Sends a request signed for this harness's app with a key of `kind`.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        kind: APIKeyKind = .secret,
        json: Data? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind)
        if json != nil { headers[.contentType] = "application/json" }
        headers.append(contentsOf: extra)
        return try await client.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    func importCatalog(_ products: [Product]) async throws -> TestResponse {
        try await send(.put, "/v1/admin/catalog", json: try TestJSON.encode(CatalogDocument(products: products)))
    }

    func catalog(_ query: String, kind: APIKeyKind = .public, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(.get, "/v1/catalog?\(query)", kind: kind, headers: headers)
    }
}

/// Products used across the catalog tests.
enum Fixtures {
    static func product(_ id: String, type: ProductType = .nonConsumable, storeID: String? = nil) -> Product {
        Product(
            productID: id,
            type: type,
            storeProductIDs: [.appStore: storeID ?? "com.test.\(id)", .playStore: storeID ?? id],
            consumableQuantity: type == .consumable ? 5 : nil,
            duration: type == .nonRenewing ? ISODuration("P1Y") : nil,
            localizations: ["en": .init(name: id.capitalized), "de": .init(name: "\(id) (de)")]
        )
    }
}
