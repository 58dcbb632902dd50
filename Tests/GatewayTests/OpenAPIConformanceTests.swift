import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing
import _CryptoExtras

@testable import Catalog
@testable import Content
@testable import Entitlements
@testable import Gateway
@testable import Subscriptions
@testable import Verifier

/// `docs/openapi.yaml` and the servers agree: the same routes, and real responses that fit the documented schemas.
@Suite struct OpenAPIConformanceTests {
    /// `/v1/admin/products/:product_id` -> `/v1/admin/products/{product_id}`.
    static func documented(_ path: String) -> String {
        "/"
            + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(
                separator: "/")
    }

    /// The route the gateway forwards `path` by: the longest prefix that matches it, `*` matching one segment.
    static func upstream(of path: String, in routes: [UpstreamRoute]) -> UpstreamRoute? {
        let segments = path.split(separator: "/")
        return routes.filter { route in
            let prefix = route.prefix.split(separator: "/")
            return prefix.count <= segments.count
                && zip(prefix, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }.max { $0.prefix.split(separator: "/").count < $1.prefix.split(separator: "/").count }
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
        let verifierSettings = try Verifier.VerifierSettings.read(from: TestEnvironment.reader())
        let verifierRouter = try Verifier.buildRouter(
            settings: verifierSettings,
            database: database,
            httpClient: HTTPClient.shared,
            metrics: PrometheusCollectorRegistry(),
            logger: logger
        )
        let entitlementsSettings = try Entitlements.EntitlementsSettings.read(from: TestEnvironment.reader())
        let entitlementsRouter = Entitlements.buildRouter(
            settings: entitlementsSettings,
            database: database,
            metrics: PrometheusCollectorRegistry(),
            logger: logger,
            subscriptions: Entitlements.subscriptionsClient(settings: entitlementsSettings, httpClient: .shared)
        )
        let contentSettings = try Content.ContentSettings.read(from: TestEnvironment.reader())
        let contentRouter = Content.buildRouter(
            settings: contentSettings, database: database,
            storage: DiskContentStorage(root: NSTemporaryDirectory(), reserveBytes: 0),
            entitlements: Content.entitlementsClient(settings: contentSettings, httpClient: .shared),
            metrics: PrometheusCollectorRegistry(), logger: logger)
        let subscriptionsRouter = Subscriptions.buildRouter(
            settings: try Subscriptions.SubscriptionsSettings.read(from: TestEnvironment.reader()), database: database,
            metrics: PrometheusCollectorRegistry(), logger: logger)
        let gatewaySettings = try GatewaySettings.read(
            from: TestEnvironment.reader([
                "SHOPKEEPER_CONTENT_URL": "http://127.0.0.1:8085",
                "SHOPKEEPER_SUBSCRIPTIONS_URL": "http://127.0.0.1:8084",
            ]))
        let gatewayRepository = AppPostgresRepository(
            client: database, box: GatewaySecretBox(masterKey: GatewaySettings.developmentMasterKey), logger: logger)
        let gatewayRouter = Gateway.buildRouter(
            settings: gatewaySettings,
            repository: gatewayRepository,
            answerKeys: gatewayRepository,
            routes: RouteTable(settings: gatewaySettings),
            forwarder: Forwarder(
                pools: UpstreamPools(
                    routes: gatewaySettings.routes, connectTimeout: .seconds(1), readTimeout: .seconds(1)),
                cache: ResponseMicroCache(), signature: gatewaySettings.service.internalSignature, logger: logger),
            shared: GatewayShared(repository: gatewayRepository, settings: gatewaySettings),
            console: ConsoleDependencies(
                sessions: ConsoleSessionPostgresRepository(client: database, logger: logger),
                auditLog: AuditLogPostgresRepository(client: database, logger: logger),
                users: ConsoleUserPostgresRepository(client: database, logger: logger), files: .none),
            readiness: [],
            catalogSync: catalogSyncRunner(settings: gatewaySettings, httpClient: .shared)
        )

        let prefixes = gatewaySettings.routes.map(\.prefix)
        var served: Set<String> = []
        for route in gatewayRouter.routes {
            let path = "\(route.path)"
            // The proxy's catch-all registrations stand for the services' own routes below.
            if path.hasSuffix("**") || prefixes.contains(Self.documented(path)) { continue }
            served.insert("\(route.method.rawValue) \(Self.documented(path))")
        }
        var verifierRoutes = 0
        let services = [
            ("catalog", catalogRouter.routes), ("verifier", verifierRouter.routes),
            ("entitlements", entitlementsRouter.routes), ("content", contentRouter.routes),
            ("subscriptions", subscriptionsRouter.routes),
        ]
        for (service, routes) in services {
            for route in routes {
                let path = Self.documented("\(route.path)")
                if path.hasPrefix("/health") || path == "/metrics" || path.hasPrefix("/internal/") { continue }
                #expect(
                    Self.upstream(of: path, in: gatewaySettings.routes)?.service == service,
                    "\(service) route \(path) is not reachable through the gateway's routing table"
                )
                served.insert("\(route.method.rawValue) \(path)")
                if service == "verifier" { verifierRoutes += 1 }
            }
        }
        #expect(
            verifierRoutes == 19, "the verifier's routes: \(verifierRouter.routes.map { "\($0.method) \($0.path)" })")
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

            try await Self.checkVerifier(gateway, secret: secret, publicKey: publicKey.key, check: check)
            try await Self.checkCustomers(gateway, secret: secret, publicKey: publicKey.key, check: check)

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

    /// Customer info and restore through the gateway: the restore goes to the verifier, the rest to entitlements.
    static func checkCustomers(
        _ gateway: GatewayHarness, secret: String, publicKey: String,
        check: (HTTPRequest.Method, String, TestResponse) -> Void
    ) async throws {
        let apple = try await gateway.send(
            .put, "/v1/admin/stores/apple", bearer: secret,
            json: Data(#"{"bundle_id":"com.example.doc","environments":["sandbox"]}"#.utf8))
        #expect(apple.status == .ok)
        let info = try await gateway.send(.get, "/v1/customers/doc-user", bearer: publicKey)
        #expect(info.status == .ok)
        check(.get, "/v1/customers/{app_user_id}", info)
        let etag = try #require(info.headers[.eTag])
        let unchanged = try await gateway.send(
            .get, "/v1/customers/doc-user", bearer: publicKey, headers: [.ifNoneMatch: etag])
        #expect(unchanged.status == .notModified)
        check(.get, "/v1/customers/{app_user_id}", unchanged)
        let long = String(repeating: "u", count: 300)
        check(
            .get, "/v1/customers/{app_user_id}",
            try await gateway.send(.get, "/v1/customers/\(long)", bearer: publicKey))

        let restore = "/v1/customers/doc-user/restore"
        let forged = try await gateway.send(
            .post, restore, bearer: publicKey,
            json: try TestJSON.encode(RestoreRequest(deviceID: "d1", signedTransactions: [Self.unsignedJWS()])))
        #expect(forged.status == .ok)
        let restored = try TestJSON.decode(RestoreResponse.self, forged.body.readableBytesView)
        #expect(restored.rejected.map(\.pointer) == ["/signed_transactions/0"])
        #expect(restored.customer?.appUserID == "doc-user")
        check(.post, "/v1/customers/{app_user_id}/restore", forged)
        let empty = try await gateway.send(.post, restore, bearer: publicKey, json: Data("{}".utf8))
        #expect(empty.status == .unprocessableContent)
        check(.post, "/v1/customers/{app_user_id}/restore", empty)
    }

    /// The verifier's endpoints through the gateway: store credentials, purchases and receipt validation, with
    /// answers that need no store (the test never reaches Apple or Google).
    static func checkVerifier(
        _ gateway: GatewayHarness, secret: String, publicKey: String,
        check: (HTTPRequest.Method, String, TestResponse) -> Void
    ) async throws {
        let stores = "/v1/admin/stores"
        check(.get, stores, try await gateway.send(.get, stores, bearer: secret))
        check(.get, stores, try await gateway.send(.get, stores, bearer: publicKey))
        let apple: [String: Any] = [
            "bundle_id": "com.example.doc", "app_apple_id": 1_234_567_890, "environments": ["production", "sandbox"],
            "shared_secret": "doc-shared-secret-0123456789",
            "api_key": [
                "issuer_id": "57246542-96fe-1a63-e053-0824d011072a", "key_id": "DOCKEY1234",
                "private_key": P256.Signing.PrivateKey().pemRepresentation,
            ],
        ]
        let savedApple = try await gateway.send(
            .put, "\(stores)/apple", bearer: secret, json: try JSONSerialization.data(withJSONObject: apple))
        #expect(savedApple.status == .ok)
        #expect(!String(decoding: savedApple.body.readableBytesView, as: UTF8.self).contains("doc-shared-secret"))
        #expect(!String(decoding: savedApple.body.readableBytesView, as: UTF8.self).contains("PRIVATE KEY"))
        check(.put, "\(stores)/{store}", savedApple)
        check(
            .put, "\(stores)/{store}",
            try await gateway.send(
                .put, "\(stores)/apple", bearer: secret, json: Data(#"{"bundle_id":"com.example.doc"}"#.utf8)))
        check(
            .put, "\(stores)/{store}",
            try await gateway.send(.put, "\(stores)/apple", bearer: secret, json: Data(#"{"bundle_id":""}"#.utf8)))
        check(
            .put, "\(stores)/{store}",
            try await gateway.send(.put, "\(stores)/apple", bearer: publicKey, json: Data(#"{"bundle_id":"x"}"#.utf8)))
        check(
            .put, "\(stores)/{store}",
            try await gateway.send(.put, "\(stores)/amazon", bearer: secret, json: Data(#"{"bundle_id":"x"}"#.utf8)))
        let google: [String: Any] = [
            "package_name": "com.example.doc", "environments": ["sandbox"],
            "service_account": [
                "type": "service_account", "project_id": "doc", "private_key_id": "k1",
                "private_key": try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation,
                "client_email": "doc@doc.iam.gserviceaccount.com", "client_id": "1",
                "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                "token_uri": "https://oauth2.googleapis.com/token",
                "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
                "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/doc",
            ],
        ]
        let savedGoogle = try await gateway.send(
            .put, "\(stores)/google", bearer: secret, json: try JSONSerialization.data(withJSONObject: google))
        #expect(savedGoogle.status == .ok)
        #expect(!String(decoding: savedGoogle.body.readableBytesView, as: UTF8.self).contains("PRIVATE KEY"))
        check(.put, "\(stores)/{store}", savedGoogle)
        check(
            .put, "\(stores)/{store}",
            try await gateway.send(
                .put, "\(stores)/google", bearer: secret,
                json: Data(#"{"package_name":"p","service_account":{"type":"user"}}"#.utf8)))
        check(.get, stores, try await gateway.send(.get, stores, bearer: secret))

        // Purchases: Apple is configured, so a broken JWS is judged; no proof or broken JSON never reach a store.
        let purchases = "/v1/purchases"
        let jws = Self.unsignedJWS()
        let malformed = try await gateway.send(
            .post, purchases, bearer: publicKey, json: Data(#"{"app_user_id":"u1","signed_transaction":"a.b"}"#.utf8))
        #expect(try code(malformed) == "malformed_proof")
        check(.post, purchases, malformed)
        let forged = try await gateway.send(
            .post, purchases, bearer: publicKey,
            json: try TestJSON.encode(PurchaseRequest(appUserID: "u1", proof: StoreProofFields(signedTransaction: jws)))
        )
        #expect(forged.status == .unprocessableContent)
        check(.post, purchases, forged)
        let none = try await gateway.send(
            .post, purchases, bearer: publicKey, json: Data(#"{"app_user_id":"u1"}"#.utf8))
        #expect(try code(none) == "validation_failed")
        check(.post, purchases, none)
        check(.post, purchases, try await gateway.send(.post, purchases, bearer: publicKey, json: Data("{".utf8)))
        check(.post, purchases, try await gateway.send(.post, purchases, bearer: nil, json: Data("{}".utf8)))

        let validate = "/v1/receipts/validate"
        let invalid = try await gateway.send(
            .post, validate, bearer: publicKey, json: Data(#"{"signed_transaction":"a.b"}"#.utf8))
        #expect(invalid.status == .ok)
        #expect(String(decoding: invalid.body.readableBytesView, as: UTF8.self).contains(#""status":"invalid""#))
        check(.post, validate, invalid)
        check(
            .post, validate,
            try await gateway.send(
                .post, validate, bearer: publicKey, json: Data(#"{"receipt_data":"x","purchase_token":"y"}"#.utf8)))

        // Without credentials every proof of the store is store_not_configured.
        check(.delete, "\(stores)/{store}", try await gateway.send(.delete, "\(stores)/apple", bearer: secret))
        let gone = try await gateway.send(.delete, "\(stores)/apple", bearer: secret)
        #expect(try code(gone) == "store_credentials_not_found")
        check(.delete, "\(stores)/{store}", gone)
        check(.delete, "\(stores)/{store}", try await gateway.send(.delete, "\(stores)/amazon", bearer: secret))
        let unconfigured = try await gateway.send(
            .post, purchases, bearer: publicKey,
            json: try TestJSON.encode(
                PurchaseRequest(
                    appUserID: "u1", deviceID: "d1", appVersion: "1.0", proof: StoreProofFields(signedTransaction: jws))
            ))
        #expect(try code(unconfigured) == "store_not_configured")
        check(.post, purchases, unconfigured)
        let unconfiguredValidation = try await gateway.send(
            .post, validate, bearer: publicKey, json: try TestJSON.encode(StoreProofFields(signedTransaction: jws)))
        #expect(try code(unconfiguredValidation) == "store_not_configured")
        check(.post, validate, unconfiguredValidation)
        check(.delete, "\(stores)/{store}", try await gateway.send(.delete, "\(stores)/google", bearer: secret))
        check(.get, stores, try await gateway.send(.get, stores, bearer: secret))
    }

    /// A well-formed compact JWS with an ES256 header and a transaction payload, but no valid certificate chain.
    static func unsignedJWS() -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let payload =
            #"{"transactionId":"2000000812345678","bundleId":"com.example.doc","productId":"doc.pro","type":"Non-Consumable","environment":"Sandbox","purchaseDate":1741944413000,"signedDate":1741944413000}"#
        return part(#"{"alg":"ES256","x5c":["AAAA"]}"#) + "." + part(payload) + "." + part("signature")
    }
}
