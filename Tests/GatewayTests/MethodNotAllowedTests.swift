import HTTPTypes
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// A method the API does not document on a path it does is `405` with `Allow`, before any key is asked for.
@Suite struct MethodNotAllowedTests {
    @Test func theMethodTableIsTheDocumentsPaths() throws {
        let document = try OpenAPIDocument.load()
        var table: Set<String> = []
        for template in PublicRoutes.shopkeeper.templates {
            for method in template.methods { table.insert("\(method.rawValue) \(template.path)") }
        }
        #expect(table.subtracting(document.operations).sorted() == [], "in the table, not in the document")
        #expect(document.operations.subtracting(table).sorted() == [], "in the document, not in the table")
    }

    @Test("The pipeline's check in place says what the table's list says, for every path and method")
    func theCheckInPlaceAgreesWithTheList() {
        let paths = [
            "/v1/catalog", "/v1/catalog/", "/v1/catalog/x", "/v1", "/", "", "*", "v1/catalog", "//v1/catalog",
            "/v1/customers/alice", "/v1/customers/", "/v1/customers//grants", "/v1/customers/alice/grants",
            "/v1/customers/alice/grants/grt_1", "/v1/customers/alice/grants/grt_1/", "/v1/customers/ali%20ce/history",
            "/v1/admin/entitlements/webhook-secret", "/v1/admin/products/p1", "/bench/x", "/v1/customers/é/trial",
        ]
        let routes = PublicRoutes.shopkeeper
        #expect(!routes.documentsPaths(under: ["bench"]))
        #expect(!routes.documentsPaths(under: ["v1", "catalogue"]))
        #expect(routes.documentsPaths(under: ["v1", "customers"]))
        #expect(routes.documentsPaths(under: ["v1", "customers", "*", "restore"]))
        #expect(routes.documentsPaths(under: ["v1", "admin", "stores", "*", "refunds"]))
        let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch]
        for path in paths {
            for method in methods {
                let listed = PublicRoutes.shopkeeper.allowedMethods(for: path).map { $0.contains(method) } ?? true
                #expect(PublicRoutes.shopkeeper.allows(method, path: path[...]) == listed, "\(method) \(path)")
            }
        }
    }

    @Test func anUndocumentedMethodOnADocumentedPathIs405WithAllow() async throws {
        try await GatewayHarness.run { gateway in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.trace, "/v1/catalog", "GET, HEAD"),
                (.delete, "/health/live", "GET"),
                (.patch, "/v1/customers/alice", "GET"),
                (.get, "/v1/customers/alice/grants/grt_1", "DELETE"),
                (.put, "/operator/v1/apps", "GET, POST"),
            ]
            for (method, path, allow) in cases {
                let response = try await gateway.send(method, path, bearer: nil)
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                #expect(try TestJSON.object(response.body.readableBytesView)["code"] as? String == "method_not_allowed")
            }
            // With a known key too, where a GET may take the gateway's fast path past the router.
            let app = try await gateway.createApp("Methods")
            for _ in 0..<2 {
                let get = try await gateway.send(
                    .get, "/v1/admin/entitlements/webhook-secret", bearer: app.secretKey.key)
                #expect(get.status == .methodNotAllowed)
                #expect(get.headers[.allow] == "POST")
            }
            let unknown = try await gateway.send(.trace, "/v1/nowhere", bearer: nil)
            #expect(unknown.status != .methodNotAllowed)
            let allowed = try await gateway.send(.get, "/health/live", bearer: nil)
            #expect(allowed.status == .ok)
        }
    }
}
