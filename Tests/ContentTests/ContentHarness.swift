import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog
@testable import Content
@testable import Entitlements
@testable import Subscriptions

/// Runs a live catalog, subscriptions, entitlements and content service on the test database, with the content
/// stored in a fresh directory, and calls them as the gateway and the verifier would.
struct ContentHarness {
    let content: any TestClientProtocol
    let entitlements: any TestClientProtocol
    let catalog: any TestClientProtocol
    let appID: String
    /// The content service's storage directory.
    let storageDirectory: String

    /// Runs `body` with the services started; `environment` is added to the content service's settings.
    static func run(
        appID: String = TestEnvironment.uniqueAppID(),
        environment: [String: String] = [:],
        products: [Product] = ContentFixtures.products,
        _ body: @Sendable (ContentHarness) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sk-content-\(RandomToken.base62(length: 10))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let catalogApp = try await Catalog.buildApplication(
            settings: try CatalogSettings.read(from: TestEnvironment.reader()))
        let subscriptionsApp = try await Subscriptions.buildApplication(
            settings: try SubscriptionsSettings.read(from: TestEnvironment.reader()))
        try await catalogApp.testLive { catalog in
            try await subscriptionsApp.testLive { subscriptions in
                let entitlementsApp = try await Entitlements.buildApplication(
                    settings: try EntitlementsSettings.read(
                        from: TestEnvironment.reader([
                            "SHOPKEEPER_SUBSCRIPTIONS_URL": "http://127.0.0.1:\(subscriptions.port ?? 0)"
                        ])))
                try await entitlementsApp.testLive { entitlements in
                    var values = [
                        "SHOPKEEPER_ENTITLEMENTS_URL": "http://127.0.0.1:\(entitlements.port ?? 0)",
                        "SHOPKEEPER_CONTENT_DIR": directory,
                        "SHOPKEEPER_CONTENT_RESERVE_BYTES": "0",
                    ]
                    values.merge(environment) { _, new in new }
                    let contentApp = try await Content.buildApplication(
                        settings: try ContentSettings.read(from: TestEnvironment.reader(values)))
                    try await contentApp.testLive { content in
                        let harness = ContentHarness(
                            content: content, entitlements: entitlements, catalog: catalog, appID: appID,
                            storageDirectory: directory)
                        if !products.isEmpty {
                            let imported = try await harness.importCatalog(products)
                            try #require(imported.status == .ok, "catalog import: \(imported.text)")
                        }
                        try await body(harness)
                    }
                }
            }
        }
    }

    /// Sends a request signed for this harness's app with a key of `kind` to the content service. `atOnce` sends
    /// it over a connection of its own (``ConcurrentHTTP``), so that requests made at once reach the service at once:
    /// the live test client sends every request over one connection, which the server answers in turn.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, kind: APIKeyKind = .secret, json: Data? = nil,
        headers extra: HTTPFields = [:], atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        var headers = HTTPFields.signed(method, path, appID: appID, kind: kind, body: json)
        headers.append(contentsOf: extra)
        return try await execute(method, path, headers: headers, body: json, atOnce: atOnce)
    }

    /// An already signed request to the content service, through the live client or over a connection of its own.
    private func execute(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields, body: Data?, atOnce: Bool
    ) async throws -> any HTTPAnswer {
        if atOnce {
            return try await ConcurrentHTTP.send(port: content.port ?? 0, method, uri, headers: headers, body: body)
        }
        return try await content.execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    func importCatalog(_ products: [Product]) async throws -> any HTTPAnswer {
        try await catalog.importCatalog(products, appID: appID)
    }

    /// Starts an upload of `version`.
    func createUpload(_ product: String, version: String, minAppVersion: String? = nil, atOnce: Bool = false)
        async throws -> any HTTPAnswer
    {
        let request = CreateContentUploadRequest(
            version: version, minAppVersion: minAppVersion.flatMap(AppVersion.init))
        return try await send(
            .post, "/v1/admin/content/\(product)/uploads", json: try TestJSON.encode(request), atOnce: atOnce)
    }

    /// Streams one file into an upload, as the gateway forwards it (unsigned body).
    func putFile(
        _ product: String, upload: String, path: String, bytes: Data, sha256: String? = nil, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        var uri = "/v1/admin/content/\(product)/uploads/\(upload)/files?path=\(DownloadSignature.escape(path))"
        if let sha256 { uri += "&sha256=\(sha256)" }
        var headers = HTTPFields.signed(.put, uri, appID: appID, kind: .secret)
        headers[.contentType] = "application/octet-stream"
        return try await execute(.put, uri, headers: headers, body: bytes, atOnce: atOnce)
    }

    func publish(_ product: String, upload: String, atOnce: Bool = false) async throws -> any HTTPAnswer {
        try await send(.post, "/v1/admin/content/\(product)/uploads/\(upload)/publish", atOnce: atOnce)
    }

    /// Uploads and publishes a version with `files`; requires success.
    @discardableResult
    func push(_ product: String, version: String, files: [String: Data], minAppVersion: String? = nil) async throws
        -> ContentVersion
    {
        let created = try await createUpload(product, version: version, minAppVersion: minAppVersion)
        try #require(created.status == .created, "create upload: \(created.text)")
        let upload = try created.decode(ContentUpload.self)
        for (path, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let put = try await putFile(product, upload: upload.uploadID, path: path, bytes: bytes)
            try #require(put.status == .ok, "put \(path): \(put.text)")
        }
        let published = try await publish(product, upload: upload.uploadID)
        try #require(published.status == .created, "publish: \(published.text)")
        return try published.decode(ContentVersion.self)
    }

    /// `GET /v1/content/{product}` for a customer and device.
    func manifestResponse(
        _ product: String, user: String = "user-1", device: String = "device-1", appVersion: String? = nil
    ) async throws -> any HTTPAnswer {
        var uri = "/v1/content/\(product)?app_user_id=\(user)&device_id=\(device)"
        if let appVersion { uri += "&app_version=\(appVersion)" }
        return try await send(.get, uri, kind: .public)
    }

    func manifest(_ product: String, user: String = "user-1", device: String = "device-1", appVersion: String? = nil)
        async throws -> ContentManifest
    {
        let response = try await manifestResponse(product, user: user, device: device, appVersion: appVersion)
        try #require(response.status == .ok, "manifest: \(response.text)")
        return try response.decode(ContentManifest.self)
    }

    /// A download URL fetched as the gateway forwards it: signed, with no app identity.
    func download(_ url: String, method: HTTPRequest.Method = .get, headers extra: HTTPFields = [:]) async throws
        -> any HTTPAnswer
    {
        var headers = HTTPFields.signed(method, url, appID: nil)
        headers.append(contentsOf: extra)
        return try await content.execute(uri: url, method: method, headers: headers)
    }

    /// Applies store transactions as the verifier does (a purchase presented by `user` on `device`).
    @discardableResult
    func apply(
        _ transactions: [StoreTransaction], user: String? = "user-1", device: String? = "device-1",
        source: ApplySource = .purchase
    ) async throws -> any HTTPAnswer {
        let request = ApplyRequest(appUserID: user, deviceID: device, source: source, transactions: transactions)
        let json = try TestJSON.encode(request)
        let response = try await entitlements.execute(
            uri: "/internal/v1/apply", method: .post,
            headers: .signed(.post, "/internal/v1/apply", appID: appID, kind: .secret, body: json),
            body: ByteBuffer(bytes: json))
        return response
    }

    /// Sets the app's device limit in entitlements.
    func setDeviceLimit(_ limit: Int) async throws {
        let path = "/v1/admin/entitlements/settings"
        let json = Data(#"{"device_limit":\#(limit)}"#.utf8)
        let response = try await entitlements.execute(
            uri: path, method: .put, headers: .signed(.put, path, appID: appID, kind: .secret, body: json),
            body: ByteBuffer(bytes: json))
        try #require(response.status == .ok, "settings: \(response.text)")
    }
}

/// Products and transactions of the content tests.
enum ContentFixtures {
    static let products: [Product] = [
        product("garden", type: .nonConsumable, entitlements: ["extra_garden"]),
        product("starter", type: .nonConsumable, free: true),
        product("pro_monthly", type: .autoRenewable, entitlements: ["pro"]),
        product("pro_pack", type: .nonConsumable, entitlements: ["pro"]),
    ]

    static func product(_ id: String, type: ProductType, entitlements: [String] = [], free: Bool = false) -> Product {
        Product(
            productID: id, type: type, storeProductIDs: [.appStore: "com.test.\(id)", .playStore: id], free: free,
            entitlements: entitlements,
            duration: type == .autoRenewable ? ISODuration("P1M") : nil,
            localizations: ["en": ProductLocalization(name: id, description: id)])
    }

    /// A transaction of the App Store product `com.test.<product>`.
    static func transaction(
        _ id: String = UUID().uuidString, product: String = "garden", revoked: Date? = nil, expires: Date? = nil
    ) -> StoreTransaction {
        StoreTransaction(
            store: .appStore, environment: .sandbox, transactionID: id, originalTransactionID: id,
            storeProductID: "com.test.\(product)", type: nil, quantity: 1,
            purchaseDate: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down)),
            expiresDate: expires, revocationDate: revoked, revocationReason: revoked == nil ? nil : .other,
            appAccountToken: nil, obfuscatedAccountID: nil, priceMilliunits: 990, currency: "EUR")
    }

    /// Deterministic pseudo-random bytes.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    static func sha256(_ data: Data) -> String { Data(SHA256.hash(data: data)).hexString }
}
