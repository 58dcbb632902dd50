import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

/// Input PostgreSQL cannot store, and flags that guard writes, sent through the real gateway to the real services:
/// each is a clear 4xx naming the field, and nothing is written.
@Suite(.serialized) struct HostileInputEndToEndTests {
    static let operatorKey = "op_hostile_input_key_0123456789"

    struct Answer {
        var status: Int
        var json: [String: Any]
        var code: String? { json["code"] as? String }
        var pointers: [String] {
            ((json["errors"] as? [[String: Any]]) ?? []).compactMap { $0["pointer"] as? String }
        }
    }

    /// The gateway and the services behind it on a fresh database, with the demo shop seeded.
    struct Stack {
        let services: GatewayStack
        let publicKey: String
        let secretKey: String

        func send(_ method: HTTPMethod, _ path: String, body: String? = nil, key: String) async throws -> Answer {
            var request = HTTPClientRequest(url: services.gateway.baseURL + path)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer \(key)")
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any]
            return Answer(status: Int(response.status.code), json: json ?? [:])
        }

        func stop() async throws { try await services.stop() }
    }

    static func withStack(_ body: (Stack) async throws -> Void) async throws {
        try await TestDatabase.withFreshDatabase { database in
            let services = try await GatewayStack.start(databaseURL: database.url, operatorKey: operatorKey)
            let gateway = services.gateway

            let envFile = FileManager.default.temporaryDirectory.appendingPathComponent("nul-\(UUID().uuidString).env")
            let seed = try runCLI([
                "seed", "demo", "--no-content", "--gateway-url", gateway.baseURL, "--operator-key", operatorKey,
                "--env-file",
                envFile.path,
            ])
            #expect(seed.status == 0, "\(seed.output)")
            let values = try DemoShopEndToEndTests.parseEnv(envFile)
            let stack = Stack(
                services: services,
                publicKey: try #require(values["SHOPKEEPER_PUBLIC_KEY"]),
                secretKey: try #require(values["SHOPKEEPER_SECRET_KEY"]))
            do {
                try await body(stack)
            } catch {
                try? await stack.stop()
                throw error
            }
            try await stack.stop()
        }
    }

    @Test func aNULCharacterAnywhereIsA4xxNamingTheFieldAndWritesNothing() async throws {
        try await Self.withStack { stack in
            let nul = #"a\u0000b"#
            let keysBefore = try await stack.send(.GET, "/v1/admin/keys", key: stack.secretKey)
            let cases: [(HTTPMethod, String, String?, String, Int, String, String)] = [
                (.POST, "/v1/admin/keys", #"{"kind":"public","label":"\#(nul)"}"#, stack.secretKey, 422, "/label", ""),
                (
                    .PUT, "/v1/admin/products/nul_product",
                    #"{"product_id":"nul_product","type":"non_consumable","review_state":"approved","cleared_for_sale":true,"store_product_ids":{"app_store":"x.nul"},"default_locale":"en","localizations":{"en":{"name":"\#(nul)"}}}"#,
                    stack.secretKey, 422, "/localizations/en/name", ""
                ),
                (.POST, "/v1/customers/alice/aliases", #"{"alias":"\#(nul)"}"#, stack.secretKey, 422, "/alias", ""),
                (
                    .POST, "/v1/customers/alice/grants",
                    #"{"entitlement_id":"extra_garden","expires_at":"2099-01-01T00:00:00Z","note":"\#(nul)"}"#,
                    stack.secretKey, 422, "/note", ""
                ),
                (.POST, "/operator/v1/apps", #"{"name":"\#(nul)"}"#, Self.operatorKey, 422, "/name", ""),
                (
                    .POST, "/v1/purchases", #"{"app_user_id":"\#(nul)","signed_transaction":"a.b.c"}"#,
                    stack.publicKey, 422, "/app_user_id", ""
                ),
                (
                    .POST, "/v1/purchases",
                    #"{"app_user_id":"alice","device_id":"\#(nul)","signed_transaction":"a.b.c"}"#,
                    stack.publicKey, 422, "/device_id", ""
                ),
                (.GET, "/v1/customers/a%00b", nil, stack.publicKey, 400, "", "invalid_url"),
                (
                    .GET, "/v1/catalog?platform=app_store&app_version=1.0&locale=en%00", nil, stack.publicKey, 400,
                    "?locale", "invalid_query"
                ),
                (
                    .GET, "/v1/customers/alice/eligibility?product_id=a%00", nil, stack.publicKey, 400, "?product_id",
                    "invalid_query"
                ),
            ]
            for (method, path, body, key, status, pointer, code) in cases {
                let answer = try await stack.send(method, path, body: body, key: key)
                #expect(answer.status == status, "\(method) \(path): \(answer.json)")
                if !pointer.isEmpty { #expect(answer.pointers == [pointer], "\(method) \(path): \(answer.json)") }
                if !code.isEmpty { #expect(answer.code == code, "\(method) \(path)") }
            }

            let keysAfter = try await stack.send(.GET, "/v1/admin/keys", key: stack.secretKey)
            #expect((keysAfter.json["keys"] as? [Any])?.count == (keysBefore.json["keys"] as? [Any])?.count)
            let product = try await stack.send(.GET, "/v1/admin/products/nul_product", key: stack.secretKey)
            #expect(product.status == 404)
            let alice = try await stack.send(.GET, "/v1/customers/alice", key: stack.secretKey)
            #expect((alice.json["entitlements"] as? [String: Any])?.isEmpty == true)
            #expect(!stack.services.verifier.logTail().contains("could not log"))
        }
    }

    @Test func aDryRunFlagOtherThanTrueOrFalseIsRefusedAndChangesNothing() async throws {
        try await Self.withStack { stack in
            func productCount() async throws -> Int? {
                let listed = try await stack.send(.GET, "/v1/admin/products", key: stack.secretKey)
                return (listed.json["products"] as? [Any])?.count
            }
            let before = try #require(try await productCount())
            #expect(before > 0)
            for flag in ["1", "yes", "TRUE", "", "true&dry_run=false"] {
                let answer = try await stack.send(
                    .PUT, "/v1/admin/catalog?dry_run=\(flag)", body: #"{"products":[]}"#, key: stack.secretKey)
                #expect(answer.status == 400, "dry_run=\(flag)")
                #expect(answer.code == "invalid_query" && answer.pointers == ["?dry_run"], "dry_run=\(flag)")
                #expect(try await productCount() == before, "dry_run=\(flag) deleted products")
            }
            let preview = try await stack.send(
                .PUT, "/v1/admin/catalog?dry_run=true", body: #"{"products":[]}"#, key: stack.secretKey)
            #expect(preview.status == 200)
            #expect((preview.json["deleted"] as? [Any])?.count == before)
            #expect(try await productCount() == before)
        }
    }
}
