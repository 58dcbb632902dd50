import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Two apps side by side: no key ever reaches the other app's data.
@Suite struct KeyScopeTests {
    @Test func keysAreScopedToTheirApp() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("Garden A")
            let b = try await gateway.createApp("Garden B")
            #expect(a.publicKey.key.hasPrefix("pk_") && a.secretKey.key.hasPrefix("sk_"))
            #expect(try await gateway.importCatalog([product("a_only")], for: a).status == .ok)
            #expect(try await gateway.importCatalog([product("b_only")], for: b).status == .ok)

            // Reading: each key sees its own app's catalog, whatever identity headers the client adds.
            #expect(try await gateway.catalogIDs(bearer: a.publicKey.key) == ["a_only"])
            #expect(try await gateway.catalogIDs(bearer: b.publicKey.key) == ["b_only"])
            let spoofed: HTTPFields = [
                HTTPField.Name("x-shopkeeper-app-id")!: b.info.appID,
                HTTPField.Name("x-shopkeeper-key-kind")!: "secret",
            ]
            #expect(try await gateway.catalogIDs(bearer: a.publicKey.key, headers: spoofed) == ["a_only"])
            let spoofedAdmin = try await gateway.send(
                .get, "/v1/admin/catalog", bearer: a.publicKey.key, headers: spoofed)
            #expect(spoofedAdmin.status == .forbidden)

            // Every admin endpoint, aimed at the other app's product or key, finds nothing of it.
            let crossApp: [(HTTPRequest.Method, String, Data?, HTTPResponse.Status)] = [
                (.get, "/v1/admin/products/b_only", nil, .notFound),
                (.delete, "/v1/admin/products/b_only", nil, .notFound),
                (.delete, "/v1/admin/keys/\(b.publicKey.info.keyID)", nil, .notFound),
            ]
            for (method, path, body, status) in crossApp {
                let response = try await gateway.send(method, path, bearer: a.secretKey.key, json: body)
                #expect(response.status == status, "\(method) \(path)")
            }
            // Writing a product with the other app's product id creates A's own product and leaves B's alone.
            #expect(
                try await gateway.send(
                    .put, "/v1/admin/products/b_only", bearer: a.secretKey.key,
                    json: try TestJSON.encode(product("b_only"))
                ).status == .created)
            let exportB = try await gateway.send(.get, "/v1/admin/catalog", bearer: b.secretKey.key)
            #expect(
                try TestJSON.decode(CatalogDocument.self, exportB.body.readableBytesView).products == [
                    product("b_only")
                ])
            let listA = try await gateway.send(.get, "/v1/admin/products", bearer: a.secretKey.key)
            #expect(
                try TestJSON.decode(CatalogDocument.self, listA.body.readableBytesView).products.map(\.productID) == [
                    "a_only", "b_only",
                ])

            // Key listings hold only the app's own keys, and never the keys themselves.
            let keys = try await gateway.send(.get, "/v1/admin/keys", bearer: a.secretKey.key)
            let listed = try TestJSON.decode(APIKeyList.self, keys.body.readableBytesView).keys
            #expect(Set(listed.map(\.keyID)) == [a.publicKey.info.keyID, a.secretKey.info.keyID])
            #expect(!String(buffer: keys.body).contains(a.secretKey.key))
            #expect(try await gateway.catalogIDs(bearer: b.publicKey.key) == ["b_only"])
        }
    }

    @Test func publicKeysCannotManage() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Public")
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/admin/catalog"), (.put, "/v1/admin/catalog"),
                (.get, "/v1/admin/products"),
                (.post, "/v1/admin/products"), (.get, "/v1/admin/products/x"), (.delete, "/v1/admin/products/x"),
                (.get, "/v1/admin/keys"), (.post, "/v1/admin/keys"), (.delete, "/v1/admin/keys/key_x"),
            ] {
                let body =
                    method == .get || method == .delete ? nil : try TestJSON.encode(CatalogDocument(products: []))
                let response = try await gateway.send(method, path, bearer: app.publicKey.key, json: body)
                #expect(response.status == .forbidden, "\(method) \(path)")
                #expect(try code(response) == "secret_key_required", "\(method) \(path)")
            }
        }
    }

    @Test func credentialsAreChecked() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Creds")
            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            let cases: [(String?, String)] = [
                (nil, "missing_credentials"),
                ("pk_short", "invalid_api_key"),
                ("pk_" + String(repeating: "a", count: 32), "invalid_api_key"),
                (GatewayHarness.operatorKey, "invalid_api_key"),
            ]
            for (bearer, expected) in cases {
                let response = try await gateway.send(.get, path, bearer: bearer)
                #expect(response.status == .unauthorized)
                #expect(try code(response) == expected)
            }
            let basic = try await gateway.client.execute(
                uri: path, method: .get, headers: [.authorization: "Basic \(app.publicKey.key)"])
            #expect(basic.status == .unauthorized)

            // Operator endpoints take only the operator key.
            for bearer in [app.secretKey.key, nil, "op_wrong_operator_key_0000000000"] {
                let response = try await gateway.send(.get, "/operator/v1/apps", bearer: bearer)
                #expect(response.status == .unauthorized)
                #expect(try code(response) == "operator_key_required")
            }
        }
    }

    @Test func revokedKeysStopWorking() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Revoke")
            let path = "/v1/catalog?platform=app_store&app_version=1.0"
            #expect(try await gateway.send(.get, path, bearer: app.publicKey.key).status == .ok)
            let revoked = try await gateway.send(
                .delete, "/operator/v1/apps/\(app.info.appID)/keys/\(app.publicKey.info.keyID)",
                bearer: GatewayHarness.operatorKey
            )
            #expect(revoked.status == .ok)
            #expect(try TestJSON.decode(APIKeyInfo.self, revoked.body.readableBytesView).revokedAt != nil)
            let after = try await gateway.send(.get, path, bearer: app.publicKey.key)
            #expect(after.status == .unauthorized)
            #expect(try code(after) == "invalid_api_key")

            // A secret key creates and revokes keys of its own app.
            let created = try await gateway.send(
                .post, "/v1/admin/keys", bearer: app.secretKey.key,
                json: try TestJSON.encode(CreateKeyRequest(kind: .public, label: "web"))
            )
            #expect(created.status == .created)
            let newKey = try TestJSON.decode(CreatedAPIKey.self, created.body.readableBytesView)
            #expect(newKey.info.label == "web")
            #expect(try await gateway.send(.get, path, bearer: newKey.key).status == .ok)
            #expect(
                try await gateway.send(.delete, "/v1/admin/keys/\(newKey.info.keyID)", bearer: app.secretKey.key).status
                    == .ok)
            #expect(try await gateway.send(.get, path, bearer: newKey.key).status == .unauthorized)
        }
    }

    @Test func operatorInputIsValidated() async throws {
        try await GatewayHarness.run { gateway in
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("/operator/v1/apps", "{", .badRequest, "malformed_json"),
                ("/operator/v1/apps", #"{"name":""}"#, .unprocessableContent, "validation_failed"),
                ("/operator/v1/apps", #"{"title":"x"}"#, .unprocessableContent, "validation_failed"),
                ("/operator/v1/apps/app_missing/keys", #"{"kind":"public"}"#, .notFound, "app_not_found"),
            ]
            for (path, body, status, expected) in cases {
                let response = try await gateway.send(
                    .post, path, bearer: GatewayHarness.operatorKey, json: Data(body.utf8))
                #expect(response.status == status, "\(path) \(body)")
                #expect(try code(response) == expected, "\(path) \(body)")
            }
            let app = try await gateway.createApp("Kinds")
            let badKind = try await gateway.send(
                .post, "/operator/v1/apps/\(app.info.appID)/keys", bearer: GatewayHarness.operatorKey,
                json: Data(#"{"kind":"root"}"#.utf8)
            )
            #expect(badKind.status == .unprocessableContent)
            let keys = try await gateway.send(
                .get, "/operator/v1/apps/\(app.info.appID)/keys", bearer: GatewayHarness.operatorKey)
            #expect(try TestJSON.decode(APIKeyList.self, keys.body.readableBytesView).keys.count == 2)
        }
    }
}
