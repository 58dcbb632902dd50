import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog
@testable import Gateway

/// `docs/openapi.yaml` and the servers agree: the same routes, and real responses that fit the documented schemas.
@Suite struct OpenAPIConformanceTests {
    /// `/v1/admin/products/:product_id` -> `/v1/admin/products/{product_id}`.
    static func documented(_ path: String) -> String {
        "/"
            + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(
                separator: "/")
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let document = try OpenAPIDocument.load()
        let logger = Logger(label: "test")
        let catalogSettings = try Catalog.CatalogSettings.read(from: TestEnvironment.reader())
        let database = catalogSettings.service.database.makeClient(logger: logger)
        let catalogRouter = Catalog.buildRouter(
            settings: catalogSettings,
            repository: ProductPostgresRepository(client: database, logger: logger),
            database: database,
            metrics: PrometheusCollectorRegistry(),
            logger: logger
        )
        let gatewaySettings = try GatewaySettings.read(from: TestEnvironment.reader())
        let gatewayRouter = Gateway.buildRouter(
            settings: gatewaySettings,
            repository: AppPostgresRepository(client: database, logger: logger),
            pools: UpstreamPools(
                routes: gatewaySettings.routes, connectTimeout: .seconds(1), readTimeout: .seconds(1), logger: logger),
            readiness: [],
            metrics: PrometheusCollectorRegistry()
        )

        let prefixes = gatewaySettings.routes.map(\.prefix)
        var served: Set<String> = []
        for route in gatewayRouter.routes {
            let path = "\(route.path)"
            // The proxy's catch-all registrations stand for the services' own routes below.
            if path.hasSuffix("**") || prefixes.contains(Self.documented(path)) { continue }
            served.insert("\(route.method.rawValue) \(Self.documented(path))")
        }
        for route in catalogRouter.routes {
            let path = Self.documented("\(route.path)")
            if path.hasPrefix("/health") || path == "/metrics" { continue }
            #expect(
                prefixes.contains { path == $0 || path.hasPrefix($0 + "/") },
                "catalog route \(path) is not reachable through the gateway's routing table"
            )
            served.insert("\(route.method.rawValue) \(path)")
        }
        let documented = document.operations
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
    }

    @Test func responsesFitTheDocumentedSchemas() async throws {
        let document = try OpenAPIDocument.load()
        try await GatewayHarness.run { gateway in
            var problems: [String] = []
            func check(_ method: HTTPRequest.Method, _ template: String, _ response: TestResponse) {
                problems += document.violations(
                    method: method.rawValue,
                    path: template,
                    status: response.status.code,
                    contentType: response.headers[.contentType],
                    body: Data(response.body.readableBytesView)
                )
            }
            let op = GatewayHarness.operatorKey
            let created = try await gateway.send(
                .post, "/operator/v1/apps", bearer: op, json: try TestJSON.encode(CreateAppRequest(name: "Doc")))
            check(.post, "/operator/v1/apps", created)
            let app = try TestJSON.decode(AppInfo.self, created.body.readableBytesView)
            check(
                .post, "/operator/v1/apps",
                try await gateway.send(.post, "/operator/v1/apps", bearer: op, json: Data("{".utf8)))
            check(.get, "/operator/v1/apps", try await gateway.send(.get, "/operator/v1/apps", bearer: op))
            check(.get, "/operator/v1/apps", try await gateway.send(.get, "/operator/v1/apps", bearer: nil))
            check(
                .get, "/operator/v1/apps/{app_id}",
                try await gateway.send(.get, "/operator/v1/apps/\(app.appID)", bearer: op))
            check(
                .get, "/operator/v1/apps/{app_id}",
                try await gateway.send(.get, "/operator/v1/apps/app_nope", bearer: op))
            let keyBody = { (kind: APIKeyKind) in try TestJSON.encode(CreateKeyRequest(kind: kind, label: "doc")) }
            let secretResponse = try await gateway.send(
                .post, "/operator/v1/apps/\(app.appID)/keys", bearer: op, json: try keyBody(.secret))
            check(.post, "/operator/v1/apps/{app_id}/keys", secretResponse)
            let secret = try TestJSON.decode(CreatedAPIKey.self, secretResponse.body.readableBytesView).key
            let publicResponse = try await gateway.send(
                .post, "/operator/v1/apps/\(app.appID)/keys", bearer: op, json: try keyBody(.public))
            let publicKey = try TestJSON.decode(CreatedAPIKey.self, publicResponse.body.readableBytesView)
            check(
                .get, "/operator/v1/apps/{app_id}/keys",
                try await gateway.send(.get, "/operator/v1/apps/\(app.appID)/keys", bearer: op))

            let products = CatalogDocument(products: [
                product("doc_a"),
                Product(
                    productID: "doc_b", type: .consumable, storeProductIDs: [.playStore: "b"], free: false,
                    minAppVersion: AppVersion("2.0"), belowMinVersion: .requiresUpdate, consumableQuantity: 3,
                    localizations: [
                        "en": .init(name: "B", description: "d", descriptionURL: "https://x.example/b", priceHint: "$1")
                    ]
                ),
            ])
            check(
                .put, "/v1/admin/catalog",
                try await gateway.send(.put, "/v1/admin/catalog", bearer: secret, json: try TestJSON.encode(products)))
            check(
                .put, "/v1/admin/catalog",
                try await gateway.send(
                    .put, "/v1/admin/catalog", bearer: secret, json: Data(#"{"products":[{}]}"#.utf8)))
            check(.get, "/v1/admin/catalog", try await gateway.send(.get, "/v1/admin/catalog", bearer: secret))
            check(.get, "/v1/admin/catalog", try await gateway.send(.get, "/v1/admin/catalog", bearer: publicKey.key))
            check(.get, "/v1/admin/products", try await gateway.send(.get, "/v1/admin/products", bearer: secret))
            check(
                .post, "/v1/admin/products",
                try await gateway.send(
                    .post, "/v1/admin/products", bearer: secret, json: try TestJSON.encode(product("doc_c"))))
            check(
                .post, "/v1/admin/products",
                try await gateway.send(
                    .post, "/v1/admin/products", bearer: secret, json: try TestJSON.encode(product("doc_c"))))
            check(
                .get, "/v1/admin/products/{product_id}",
                try await gateway.send(.get, "/v1/admin/products/doc_c", bearer: secret))
            check(
                .get, "/v1/admin/products/{product_id}",
                try await gateway.send(.get, "/v1/admin/products/none", bearer: secret))
            check(
                .put, "/v1/admin/products/{product_id}",
                try await gateway.send(
                    .put, "/v1/admin/products/doc_c", bearer: secret, json: try TestJSON.encode(product("doc_c"))))
            check(
                .delete, "/v1/admin/products/{product_id}",
                try await gateway.send(.delete, "/v1/admin/products/doc_c", bearer: secret))

            for query in [
                "platform=app_store&app_version=1.0", "platform=play_store&app_version=1.0&build=development&locale=en",
                "platform=x",
            ] {
                check(.get, "/v1/catalog", try await gateway.send(.get, "/v1/catalog?\(query)", bearer: publicKey.key))
            }
            check(
                .get, "/v1/catalog",
                try await gateway.send(.get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: nil))

            check(.get, "/v1/admin/keys", try await gateway.send(.get, "/v1/admin/keys", bearer: secret))
            let webKey = try await gateway.send(.post, "/v1/admin/keys", bearer: secret, json: try keyBody(.public))
            check(.post, "/v1/admin/keys", webKey)
            let webKeyID = try TestJSON.decode(CreatedAPIKey.self, webKey.body.readableBytesView).info.keyID
            check(
                .delete, "/v1/admin/keys/{key_id}",
                try await gateway.send(.delete, "/v1/admin/keys/\(webKeyID)", bearer: secret))
            check(
                .delete, "/v1/admin/keys/{key_id}",
                try await gateway.send(.delete, "/v1/admin/keys/key_none", bearer: secret))
            check(
                .delete, "/operator/v1/apps/{app_id}/keys/{key_id}",
                try await gateway.send(
                    .delete, "/operator/v1/apps/\(app.appID)/keys/\(publicKey.info.keyID)", bearer: op)
            )
            check(.get, "/health/live", try await gateway.client.execute(uri: "/health/live", method: .get))
            check(.get, "/health/ready", try await gateway.client.execute(uri: "/health/ready", method: .get))
            #expect(problems == [])
        }
    }
}
