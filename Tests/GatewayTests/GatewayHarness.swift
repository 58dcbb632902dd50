import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import ShopkeeperModels
import ShopkeeperTestSupport

@testable import Catalog
@testable import Entitlements
@testable import Gateway
@testable import Subscriptions
@testable import Verifier

/// A live catalog, entitlements service and verifier, and a live gateway in front of them, on the test database.
struct GatewayHarness {
    static let operatorKey = "op_test_operator_key_0123456789"

    let client: any TestClientProtocol
    /// A second gateway replica on the same database and services (`replicas: 2`), else `client`.
    var replica: any TestClientProtocol

    /// Runs a catalog, an entitlements service and a verifier, then a gateway routed to them (or all to
    /// `upstreamURL`), then `body`. `environment` configures the gateway, `verifierEnvironment` the verifier;
    /// `metrics` and `hooks` go to the gateway's builder.
    static func run(
        environment: [String: String] = [:],
        verifierEnvironment: [String: String] = [:],
        upstreamURL: String? = nil,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        hooks: GatewayHooks = GatewayHooks(),
        replicas: Int = 1,
        _ body: @Sendable (GatewayHarness) async throws -> Void
    ) async throws {
        let catalogSettings = try Catalog.CatalogSettings.read(from: TestEnvironment.reader())
        let catalog = try await Catalog.buildApplication(settings: catalogSettings)
        let subscriptions = try await Subscriptions.buildApplication(
            settings: try Subscriptions.SubscriptionsSettings.read(from: TestEnvironment.reader()))
        try await catalog.testLive { catalogClient in
            try await subscriptions.testLive { subscriptionsClient in
                let subscriptionsURL = "http://127.0.0.1:\(subscriptionsClient.port ?? 0)"
                let entitlementsSettings = try Entitlements.EntitlementsSettings.read(
                    from: TestEnvironment.reader(["SHOPKEEPER_SUBSCRIPTIONS_URL": subscriptionsURL]))
                let entitlements = try await Entitlements.buildApplication(settings: entitlementsSettings)
                try await entitlements.testLive { entitlementsClient in
                    let entitlementsURL = "http://127.0.0.1:\(entitlementsClient.port ?? 0)"
                    let verifierSettings = try Verifier.VerifierSettings.read(
                        from: TestEnvironment.reader(
                            [
                                "SHOPKEEPER_ENTITLEMENTS_URL": entitlementsURL,
                                "SHOPKEEPER_SUBSCRIPTIONS_URL": subscriptionsURL,
                            ].merging(verifierEnvironment) { _, new in new }))
                    let verifier = try await Verifier.buildApplication(settings: verifierSettings)
                    try await verifier.testLive { verifierClient in
                        var values = [
                            "SHOPKEEPER_OPERATOR_KEY": operatorKey,
                            "SHOPKEEPER_CATALOG_URL": upstreamURL ?? "http://127.0.0.1:\(catalogClient.port ?? 0)",
                            "SHOPKEEPER_VERIFIER_URL": upstreamURL ?? "http://127.0.0.1:\(verifierClient.port ?? 0)",
                            "SHOPKEEPER_ENTITLEMENTS_URL": upstreamURL ?? entitlementsURL,
                            "SHOPKEEPER_SUBSCRIPTIONS_URL": upstreamURL ?? subscriptionsURL,
                            "SHOPKEEPER_KEY_CACHE_SECONDS": "0",
                        ]
                        values.merge(environment) { _, new in new }
                        let settings = try GatewaySettings.read(from: TestEnvironment.reader(values))
                        let gateway = try await Gateway.buildApplication(
                            settings: settings, metrics: metrics, hooks: hooks)
                        try await gateway.testLive { client in
                            guard replicas > 1 else {
                                return try await body(GatewayHarness(client: client, replica: client))
                            }
                            let second = try await Gateway.buildApplication(settings: settings)
                            try await second.testLive { other in
                                try await body(GatewayHarness(client: client, replica: other))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Sends a request with `Authorization: Bearer <bearer>`.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        bearer: String?,
        json: Data? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
    }

    /// An app with one public and one secret key.
    struct TestApp {
        var info: AppInfo
        var publicKey: CreatedAPIKey
        var secretKey: CreatedAPIKey
    }

    func createApp(_ name: String) async throws -> TestApp {
        let app = try await send(
            .post, "/operator/v1/apps", bearer: Self.operatorKey,
            json: try TestJSON.encode(CreateAppRequest(name: name)))
        let info = try TestJSON.decode(AppInfo.self, app.body.readableBytesView)
        func key(_ kind: APIKeyKind) async throws -> CreatedAPIKey {
            let response = try await send(
                .post,
                "/operator/v1/apps/\(info.appID)/keys",
                bearer: Self.operatorKey,
                json: try TestJSON.encode(CreateKeyRequest(kind: kind))
            )
            return try TestJSON.decode(CreatedAPIKey.self, response.body.readableBytesView)
        }
        return TestApp(info: info, publicKey: try await key(.public), secretKey: try await key(.secret))
    }

    func importCatalog(_ products: [Product], for app: TestApp) async throws -> TestResponse {
        try await send(
            .put, "/v1/admin/catalog", bearer: app.secretKey.key,
            json: try TestJSON.encode(CatalogDocument(products: products)))
    }

    func catalogIDs(bearer: String, headers: HTTPFields = [:]) async throws -> [String] {
        let response = try await send(
            .get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: bearer, headers: headers)
        return try TestJSON.decode(CatalogView.self, response.body.readableBytesView).products.map(\.productID)
    }
}

func product(_ id: String) -> Product {
    Product(
        productID: id,
        type: .nonConsumable,
        storeProductIDs: [.appStore: "com.test.\(id)"],
        localizations: ["en": .init(name: id)]
    )
}

func code(_ response: TestResponse) throws -> String? {
    try TestJSON.object(response.body.readableBytesView)["code"] as? String
}
