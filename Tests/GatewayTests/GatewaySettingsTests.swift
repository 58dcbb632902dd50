import ShopkeeperCore
import Testing

@testable import Gateway

/// Bad settings stop the start with a message naming the variable.
@Suite struct GatewaySettingsTests {
    /// (variable set, its value, the variable the error must name)
    @Test(arguments: [
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC", "lots", "SHOPKEEPER_RATE_LIMIT_PUBLIC"),
        ("SHOPKEEPER_RATE_LIMIT_SECRET", "10", "SHOPKEEPER_RATE_LIMIT_SECRET"),
        ("SHOPKEEPER_OPERATOR_KEY", "short", "SHOPKEEPER_OPERATOR_KEY"),
        ("SHOPKEEPER_CATALOG_URL", "ftp://catalog", "SHOPKEEPER_CATALOG_URL"),
        ("SHOPKEEPER_CATALOG_URL", "https://catalog.internal", "SHOPKEEPER_CATALOG_URL"),
        ("SHOPKEEPER_GATEWAY_ROUTES", "/v1/catalog=http://127.0.0.1:8081", "SHOPKEEPER_GATEWAY_ROUTES"),
        ("SHOPKEEPER_GATEWAY_ROUTES", "/v1/catalog=catalog@https://127.0.0.1:8081", "SHOPKEEPER_GATEWAY_ROUTES"),
        ("SHOPKEEPER_CORS_ORIGINS", "https://shop.example.com/", "SHOPKEEPER_CORS_ORIGINS"),
        ("SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS", "0", "SHOPKEEPER_UPSTREAM_READ_TIMEOUT_MS"),
        ("SHOPKEEPER_PORT", "70000", "SHOPKEEPER_PORT"),
        ("SHOPKEEPER_ENV", "staging", "SHOPKEEPER_ENV"),
        ("DATABASE_URL", "mysql://localhost/shop", "DATABASE_URL"),
    ])
    func badValuesNameTheirVariable(variable: String, value: String, expected: String) throws {
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader([variable: value]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == expected
        }
    }

    @Test func productionRefusesTheDevelopmentSecret() {
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_ENV": "production"]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SHOPKEEPER_INTERNAL_SECRET"
        }
    }

    @Test func productionNeedsAMasterKeyToSealCustomerTokenSecrets() throws {
        let production = [
            "SHOPKEEPER_ENV": "production", "SHOPKEEPER_INTERNAL_SECRET": String(repeating: "i", count: 40),
        ]
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader(production))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SHOPKEEPER_MASTER_KEY"
        }
        var configured = production
        configured["SHOPKEEPER_MASTER_KEY"] = String(repeating: "m", count: 40)
        #expect(
            try GatewaySettings.read(from: EnvironmentReader(configured)).masterKey
                == configured["SHOPKEEPER_MASTER_KEY"])
        #expect(
            try GatewaySettings.read(from: EnvironmentReader([:])).masterKey == GatewaySettings.developmentMasterKey)
    }

    @Test func defaultsAreUsableLocally() throws {
        let settings = try GatewaySettings.read(from: EnvironmentReader([:]))
        #expect(settings.service.port == 8080)
        #expect(
            settings.routes.map(\.prefix) == [
                "/v1/catalog", "/v1/admin/products", "/v1/admin/catalog", "/v1/purchases", "/v1/receipts",
                "/v1/admin/stores", "/v1/notifications", "/v1/customers/*/restore", "/v1/customers",
                "/v1/admin/entitlements",
                "/v1/admin/events", "/v1/admin/purchases",
            ])
        #expect(settings.operatorKey == nil)
    }

    @Test func theContentVolumeMustExistAndServeContentRoutes() throws {
        let content = ["SHOPKEEPER_CONTENT_URL": "http://127.0.0.1:8085"]
        for environment in [
            content.merging(["SHOPKEEPER_CONTENT_DIR": "/nonexistent/shopkeeper-content"]) { $1 },
            // A file is not a directory.
            content.merging(["SHOPKEEPER_CONTENT_DIR": "/etc/hostname"]) { $1 },
            // No content routes: nothing would use it.
            ["SHOPKEEPER_CONTENT_DIR": "/tmp"],
        ] {
            #expect {
                _ = try GatewaySettings.read(from: EnvironmentReader(environment))
            } throws: { error in
                (error as? ConfigurationError)?.variable == "SHOPKEEPER_CONTENT_DIR"
            }
        }
        let settings = try GatewaySettings.read(
            from: EnvironmentReader(content.merging(["SHOPKEEPER_CONTENT_DIR": "/tmp"]) { $1 }))
        #expect(settings.contentDirectory == "/tmp")
        #expect(try GatewaySettings.read(from: EnvironmentReader(content)).contentDirectory == nil)
    }

    @Test func routesTableParses() throws {
        let settings = try GatewaySettings.read(
            from: EnvironmentReader(["SHOPKEEPER_GATEWAY_ROUTES": "/v1/catalog=catalog@http://10.0.0.5:9000/base"])
        )
        let route = try #require(settings.routes.first)
        #expect(
            route.service == "catalog" && route.host == "10.0.0.5" && route.port == 9000 && route.basePath == "/base")
    }
}
