import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog

@Suite struct ProductAdminTests {
    @Test func createReadReplaceDelete() async throws {
        try await CatalogHarness.run { harness in
            let product = Fixtures.product("garden")
            let created = try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(product))
            #expect(created.status == .created)

            let fetched = try await harness.send(.get, "/v1/admin/products/garden")
            #expect(fetched.status == .ok)
            #expect(try TestJSON.decode(Product.self, fetched.body.readableBytesView) == product)

            let again = try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(product))
            #expect(again.status == .conflict)
            #expect(try TestJSON.object(again.body.readableBytesView)["code"] as? String == "product_exists")

            var changed = product
            changed.clearedForSale = false
            let replaced = try await harness.send(.put, "/v1/admin/products/garden", json: try TestJSON.encode(changed))
            #expect(replaced.status == .ok)
            let afterPut = try await harness.send(.get, "/v1/admin/products/garden")
            #expect(try TestJSON.decode(Product.self, afterPut.body.readableBytesView).clearedForSale == false)

            #expect(try await harness.send(.delete, "/v1/admin/products/garden").status == .noContent)
            let gone = try await harness.send(.get, "/v1/admin/products/garden")
            #expect(gone.status == .notFound)
            #expect(gone.headers[.contentType] == "application/problem+json")
            #expect(try TestJSON.object(gone.body.readableBytesView)["code"] as? String == "product_not_found")
            #expect(try await harness.send(.delete, "/v1/admin/products/garden").status == .notFound)
        }
    }

    @Test func importThenExportRoundTripsAndReportsChanges() async throws {
        try await CatalogHarness.run { harness in
            let first = [Fixtures.product("a"), Fixtures.product("b", type: .consumable)]
            let imported = try await harness.importCatalog(first)
            #expect(imported.status == .ok)
            let result = try TestJSON.decode(CatalogImportResult.self, imported.body.readableBytesView)
            #expect(result.created == ["a", "b"])

            var b = first[1]
            b.sortOrder = 5
            // Store ids may move between products within one import.
            var c = Fixtures.product("c")
            c.storeProductIDs = first[0].storeProductIDs
            c.grandfatheredBelowVersion = AppVersion("2.0")
            let second = try await harness.importCatalog([b, c])
            let changes = try TestJSON.decode(CatalogImportResult.self, second.body.readableBytesView)
            #expect(changes.created == ["c"])
            #expect(changes.updated == ["b"])
            #expect(changes.deleted == ["a"])
            #expect(changes.revision > result.revision)

            let exported = try await harness.send(.get, "/v1/admin/catalog")
            let document = try TestJSON.decode(CatalogDocument.self, exported.body.readableBytesView)
            #expect(Set(document.products.map(\.productID)) == ["b", "c"])
            #expect(document.products.first { $0.productID == "c" } == c)

            let dryRun = try await harness.send(
                .put,
                "/v1/admin/catalog?dry_run=true",
                json: try TestJSON.encode(CatalogDocument(products: []))
            )
            #expect(try TestJSON.decode(CatalogImportResult.self, dryRun.body.readableBytesView).deleted == ["b", "c"])
            let stillThere = try await harness.send(.get, "/v1/admin/catalog")
            #expect(try TestJSON.decode(CatalogDocument.self, stillThere.body.readableBytesView).products.count == 2)
        }
    }

    /// Bad input of every kind: a 4xx problem with a stable code, and nothing written.
    @Test(
        arguments: [
            ("not JSON", "{\"product_id\": ", 400, "malformed_json", nil),
            ("empty body", "", 400, "malformed_json", nil),
            (
                "unknown enum",
                #"{"products":[{"product_id":"x","type":"gift","review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/type"
            ),
            (
                "bad version",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","min_app_version":"two","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/min_app_version"
            ),
            (
                "unknown field",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}},"colour":"red"}]}"#,
                422, "validation_failed", "/products/0/colour"
            ),
            (
                "unknown platform",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"windows_store":"x"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", nil
            ),
            (
                "stripe product instead of price",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"stripe":"prod_NWjs8kKbJWmuuc"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/store_product_ids/stripe"
            ),
            (
                "wrong type",
                #"{"products":[{"product_id":7,"type":"non_consumable","review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/product_id"
            ),
            (
                "missing field",
                #"{"products":[{"product_id":"x","review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/type"
            ),
            (
                "consumable without quantity",
                #"{"products":[{"product_id":"x","type":"consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/consumable_quantity"
            ),
            (
                "default locale missing",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","default_locale":"fr","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/default_locale"
            ),
            (
                "bad id",
                #"{"products":[{"product_id":"a b","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/product_id"
            ),
            (
                "duplicate ids",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}},{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"y"},"review_state":"approved","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/1/product_id"
            ),
            (
                "grandfathered consumable",
                #"{"products":[{"product_id":"x","type":"consumable","consumable_quantity":5,"store_product_ids":{"app_store":"x"},"review_state":"approved","grandfathered_below_version":"2.0","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/grandfathered_below_version"
            ),
            (
                "bad grandfathering version",
                #"{"products":[{"product_id":"x","type":"non_consumable","store_product_ids":{"app_store":"x"},"review_state":"approved","grandfathered_below_version":"two","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/grandfathered_below_version"
            ),
            (
                "bad duration",
                #"{"products":[{"product_id":"x","type":"non_renewing","store_product_ids":{"app_store":"x"},"review_state":"approved","duration":"1 year","default_locale":"en","localizations":{"en":{"name":"X"}}}]}"#,
                422, "validation_failed", "/products/0/duration"
            ),
        ] as [(String, String, Int, String, String?)])
    func badImportsAreRefusedWithNothingWritten(name: String, body: String, status: Int, code: String, pointer: String?)
        async throws
    {
        try await CatalogHarness.run { harness in
            #expect(try await harness.importCatalog([Fixtures.product("kept")]).status == .ok)
            let response = try await harness.send(.put, "/v1/admin/catalog", json: Data(body.utf8))
            #expect(response.status.code == status, "\(name)")
            #expect(response.headers[.contentType] == "application/problem+json", "\(name)")
            let problem = try TestJSON.object(response.body.readableBytesView)
            #expect(problem["code"] as? String == code, "\(name)")
            #expect(problem["status"] as? Int == status, "\(name)")
            if let pointer {
                let errors = problem["errors"] as? [[String: Any]] ?? []
                #expect(errors.contains { $0["pointer"] as? String == pointer }, "\(name): \(errors)")
            }
            let exported = try await harness.send(.get, "/v1/admin/catalog")
            let document = try TestJSON.decode(CatalogDocument.self, exported.body.readableBytesView)
            #expect(document.products.map(\.productID) == ["kept"], "\(name)")
        }
    }

    @Test func oversizedBodyIsRefused() async throws {
        try await CatalogHarness.run(environment: ["SHOPKEEPER_MAX_BODY_BYTES": "2048"]) { harness in
            var product = Fixtures.product("big")
            product.localizations["en"]?.description = String(repeating: "x", count: 3000)
            let response = try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(product))
            #expect(response.status == .contentTooLarge)
            #expect(try TestJSON.object(response.body.readableBytesView)["code"] as? String == "body_too_large")
            #expect(try await harness.send(.get, "/v1/admin/products/big").status == .notFound)
        }
    }

    @Test func storeProductIDsAreUniquePerApp() async throws {
        try await CatalogHarness.run { harness in
            let first = Fixtures.product("one", storeID: "shared.id")
            #expect(
                try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(first)).status == .created
            )
            let second = Fixtures.product("two", storeID: "shared.id")
            let response = try await harness.send(.post, "/v1/admin/products", json: try TestJSON.encode(second))
            #expect(response.status == .conflict)
            #expect(try TestJSON.object(response.body.readableBytesView)["code"] as? String == "store_product_id_taken")
            #expect(try await harness.send(.get, "/v1/admin/products/two").status == .notFound)
        }
    }

    @Test func publicKeysCannotAdminister() async throws {
        try await CatalogHarness.run { harness in
            let response = try await harness.send(
                .post, "/v1/admin/products", kind: .public, json: try TestJSON.encode(Fixtures.product("p"))
            )
            #expect(response.status == .forbidden)
            #expect(try TestJSON.object(response.body.readableBytesView)["code"] as? String == "secret_key_required")
            #expect(try await harness.send(.get, "/v1/admin/products/p").status == .notFound)
        }
    }

    @Test func pathAndBodyIDsMustAgree() async throws {
        try await CatalogHarness.run { harness in
            let response = try await harness.send(
                .put, "/v1/admin/products/other", json: try TestJSON.encode(Fixtures.product("p")))
            #expect(response.status == .unprocessableContent)
            #expect(try await harness.send(.get, "/v1/admin/products/p").status == .notFound)
        }
    }
}
