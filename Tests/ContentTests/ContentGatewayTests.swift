import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The content routes through a live gateway: uploads larger than the gateway's JSON limit, manifests with an API
/// key, and downloads with none (the keyless route), whatever identity headers the client sends.
@Suite struct ContentGatewayTests {
    static let operatorKey = "op_test_operator_key_0123456789"

    @Test func downloadsAreKeylessAndUploadsStreamPastTheBodyLimit() async throws {
        try await ContentHarness.run(products: []) { harness in
            let settings = try GatewaySettings.read(
                from: TestEnvironment.reader([
                    "SHOPKEEPER_OPERATOR_KEY": Self.operatorKey,
                    "SHOPKEEPER_CATALOG_URL": "http://127.0.0.1:\(harness.catalog.port ?? 0)",
                    "SHOPKEEPER_ENTITLEMENTS_URL": "http://127.0.0.1:\(harness.entitlements.port ?? 0)",
                    "SHOPKEEPER_VERIFIER_URL": "http://127.0.0.1:9",
                    "SHOPKEEPER_CONTENT_URL": "http://127.0.0.1:\(harness.content.port ?? 0)",
                    "SHOPKEEPER_KEY_CACHE_SECONDS": "0",
                ]))
            #expect(settings.keylessPrefixes == ["/v1/notifications", "/v1/downloads"])
            let gatewayApp = try await Gateway.buildApplication(settings: settings)
            try await gatewayApp.testLive { gateway in
                func send(
                    _ method: HTTPRequest.Method, _ uri: String, bearer: String?, body: Data? = nil,
                    headers extra: HTTPFields = [:]
                ) async throws -> any HTTPAnswer {
                    var headers = extra
                    if let bearer { headers[.authorization] = "Bearer \(bearer)" }
                    if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
                    return try await gateway.execute(
                        uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
                }
                let app = try TestJSON.decode(
                    AppInfo.self,
                    try await send(
                        .post, "/operator/v1/apps", bearer: Self.operatorKey,
                        body: try TestJSON.encode(CreateAppRequest(name: "Content"))
                    ).body.readableBytesView)
                func key(_ kind: APIKeyKind) async throws -> String {
                    let response = try await send(
                        .post, "/operator/v1/apps/\(app.appID)/keys", bearer: Self.operatorKey,
                        body: try TestJSON.encode(CreateKeyRequest(kind: kind)))
                    return try TestJSON.decode(CreatedAPIKey.self, response.body.readableBytesView).key
                }
                let (secret, publicKey) = (try await key(.secret), try await key(.public))
                let catalog = try TestJSON.encode(CatalogDocument(products: ContentFixtures.products))
                #expect(try await send(.put, "/v1/admin/catalog", bearer: secret, body: catalog).status == .ok)

                // 3 MiB in one request: more than SHOPKEEPER_MAX_BODY_BYTES, within the content prefix's limit.
                let bytes = ContentFixtures.bytes(3 << 20, seed: 4)
                let created = try await send(
                    .post, "/v1/admin/content/starter/uploads", bearer: secret,
                    body: try TestJSON.encode(CreateContentUploadRequest(version: "1")))
                let upload = try created.decode(ContentUpload.self)
                let base = "/v1/admin/content/starter/uploads/\(upload.uploadID)"
                let put = try await send(
                    .put, "\(base)/files?path=big.bin", bearer: secret, body: bytes,
                    headers: [.contentType: "application/octet-stream"])
                #expect(put.status == .ok, "\(put.text)")
                #expect(try await send(.post, "\(base)/publish", bearer: publicKey).status == .forbidden)
                #expect(try await send(.post, "\(base)/publish", bearer: secret).status == .created)

                // The manifest needs a key; the download needs none.
                #expect(
                    try await send(.get, "/v1/content/starter?app_user_id=u&device_id=d", bearer: nil).status
                        == .unauthorized)
                let claim = try await send(
                    .post, "/v1/content/starter/claim", bearer: publicKey,
                    body: try TestJSON.encode(ContentClaimRequest(appUserID: "u", deviceID: "d")))
                let url = try claim.decode(ContentManifest.self).files[0].url
                let download = try await send(.get, url, bearer: nil)
                #expect(download.status == .ok)
                #expect(Data(download.body.readableBytesView) == bytes)
                #expect(download.headers[.eTag] == "\"\(ContentFixtures.sha256(bytes))\"")
                // Whatever the client claims to be is not passed on: a bogus key and identity headers change nothing.
                let spoofed = try await send(
                    .get, url, bearer: "sk_not_a_key",
                    headers: [
                        HTTPField.Name("x-shopkeeper-app-id")!: "app_other",
                        HTTPField.Name("x-shopkeeper-key-kind")!: "secret", .range: "bytes=0-9",
                    ])
                #expect(spoofed.status == .partialContent)
                #expect(Data(spoofed.body.readableBytesView) == bytes.prefix(10))
                #expect(try await send(.get, url + "0", bearer: nil).problemCode == "invalid_signature")
                let notModified = try await send(
                    .get, url, bearer: nil, headers: [.ifNoneMatch: "\"\(ContentFixtures.sha256(bytes))\""])
                #expect(notModified.status == .notModified)
                // Other routes still need a key.
                #expect(try await send(.get, "/v1/admin/content/starter", bearer: nil).status == .unauthorized)

                // The content report goes to the content service: the download above, in today's row.
                let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
                let report = try await send(
                    .get, "/v1/admin/reports/content?from=\(today)&to=\(today)&group_by=product", bearer: secret)
                #expect(report.status == .ok, "\(report.text)")
                let document = try ReportDocument(report.body.readableBytesView)
                #expect(document.rows.first?["product_id"] == "starter")
                #expect(document.total()?["bytes_sent"] == .integer(Int64(bytes.count + 10)))
            }
        }
    }
}
