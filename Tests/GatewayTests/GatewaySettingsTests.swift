import ShopkeeperCore
import Testing

@testable import Gateway

/// Bad settings stop the start with a message naming the variable.
@Suite struct GatewaySettingsTests {
    /// (variable set, its value, the variable the error must name)
    @Test(arguments: [
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC", "lots", "SHOPKEEPER_RATE_LIMIT_PUBLIC"),
        ("SHOPKEEPER_RATE_LIMIT_SECRET", "10", "SHOPKEEPER_RATE_LIMIT_SECRET"),
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT", "ten", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
        // A customer's limit above its address's, or an address's above the key's ceiling (1000/2000 by default),
        // would never apply.
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT", "5000/10", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT", "10/5000", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS", "5000/100", "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS"),
        ("SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS", "10/20", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
        ("SHOPKEEPER_RATE_LIMIT_CLIENTS_MAX", "10", "SHOPKEEPER_RATE_LIMIT_CLIENTS_MAX"),
        ("SHOPKEEPER_GATEWAY_TRUSTED_PROXIES", "10.0.0.0/33", "SHOPKEEPER_GATEWAY_TRUSTED_PROXIES"),
        ("SHOPKEEPER_GATEWAY_TRUSTED_PROXIES", "10.0.0.1,lb.internal", "SHOPKEEPER_GATEWAY_TRUSTED_PROXIES"),
        // The public port (8080 by default) never serves /metrics.
        ("SHOPKEEPER_GATEWAY_METRICS_PORT", "8080", "SHOPKEEPER_GATEWAY_METRICS_PORT"),
        ("SHOPKEEPER_GATEWAY_METRICS_PORT", "99999", "SHOPKEEPER_GATEWAY_METRICS_PORT"),
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
        ("SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS", "30", "SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS"),
        ("SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS", "hourly", "SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS"),
        ("SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS", "999999", "SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS"),
    ])
    func badValuesNameTheirVariable(variable: String, value: String, expected: String) throws {
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader([variable: value]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == expected
        }
    }

    @Test func rateLimitAndMetricsDefaults() throws {
        let settings = try GatewaySettings.read(from: EnvironmentReader([:]))
        #expect(settings.rateLimits.publicKeys == RateLimit(perSecond: 1000, burst: 2000))
        #expect(settings.rateLimits.publicClients == RateLimit(perSecond: 20, burst: 40))
        #expect(settings.rateLimits.publicAddresses == RateLimit(perSecond: 500, burst: 1000))
        // Unset, an address's limit follows the others: at least a customer's, at most the ceiling.
        let raised = try GatewaySettings.read(
            from: EnvironmentReader([
                "SHOPKEEPER_RATE_LIMIT_PUBLIC": "5000/9000", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "800/1600",
            ]))
        #expect(raised.rateLimits.publicAddresses == RateLimit(perSecond: 800, burst: 1600))
        let capped = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_RATE_LIMIT_PUBLIC": "100/300"]))
        #expect(capped.rateLimits.publicAddresses == RateLimit(perSecond: 100, burst: 300))
        #expect(settings.rateLimits.secretKeys == RateLimit(perSecond: 100, burst: 200))
        #expect(settings.maximumRateLimitClients == 100_000)
        #expect(settings.trustedProxies.isEmpty)
        #expect(settings.metricsHost == "127.0.0.1")
        // The scheduled catalog sync is off unless set.
        #expect(settings.catalogSyncInterval == nil)
        let hourly = try GatewaySettings.read(
            from: EnvironmentReader(["SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS": "3600"]))
        #expect(hourly.catalogSyncInterval == .seconds(3600))
        #expect(settings.metricsPort == 9080)
        let configured = try GatewaySettings.read(
            from: EnvironmentReader([
                "SHOPKEEPER_GATEWAY_TRUSTED_PROXIES": " 10.0.0.0/8, ::1 ,192.0.2.7",
                "SHOPKEEPER_GATEWAY_METRICS_HOST": "0.0.0.0", "SHOPKEEPER_GATEWAY_METRICS_PORT": "9100",
            ]))
        #expect(configured.trustedProxies == ["10.0.0.0/8", "::1", "192.0.2.7"].compactMap { IPNetwork($0) })
        #expect(configured.metricsHost == "0.0.0.0")
        #expect(configured.metricsPort == 9100)
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
                "/v1/catalog", "/v1/admin/products", "/v1/admin/catalog", "/v1/offerings", "/v1/admin/offerings",
                "/v1/admin/offering-rules", "/v1/admin/experiments", "/v1/purchases", "/v1/receipts",
                "/v1/admin/stores", "/v1/admin/verification-attempts", "/v1/notifications", "/v1/customers/*/restore",
                "/v1/customers/*/offer-signatures", "/v1/customers/*/checkout", "/v1/customers/*/portal",
                "/v1/customers/*/subscriptions",
                "/v1/customers", "/v1/admin/entitlements",
                "/v1/admin/events", "/v1/admin/webhook-endpoints", "/v1/admin/purchases", "/v1/admin/customers",
                "/v1/admin/aliases", "/v1/admin/exchange-rates", "/v1/admin/reports", "/v1/admin/reports/experiments",
            ])
        #expect(settings.operatorKey == nil)
    }

    @Test func reportsGoToTheServicesThatOwnTheirFacts() throws {
        let settings = try GatewaySettings.read(
            from: EnvironmentReader([
                "SHOPKEEPER_CONTENT_URL": "http://127.0.0.1:8085",
                "SHOPKEEPER_SUBSCRIPTIONS_URL": "http://127.0.0.1:8084",
            ]))
        for (path, service) in [
            ("/v1/admin/reports/sales", "entitlements"), ("/v1/admin/reports/usage", "entitlements"),
            ("/v1/admin/reports/consumables", "entitlements"), ("/v1/admin/reports/subscriptions", "subscriptions"),
            ("/v1/admin/reports/content", "content"), ("/v1/admin/reports/mrr", "entitlements"),
            ("/v1/admin/exchange-rates", "entitlements"), ("/v1/admin/reports/experiments/price_test", "catalog"),
            ("/v1/admin/reports/trial-conversion", "entitlements"), ("/v1/admin/reports/retention", "entitlements"),
            ("/v1/admin/reports/churn", "entitlements"), ("/v1/admin/reports/refunds", "entitlements"),
            ("/v1/admin/reports/ltv", "entitlements"), ("/v1/admin/reports/activity", "entitlements"),
        ] {
            let route = settings.routes.filter { $0.matches(Substring(path)) }
                .max { $0.segments.count < $1.segments.count }
            #expect(route?.service == service, "\(path)")
        }
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_SUBSCRIPTIONS_URL": "ftp://x"]))
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SHOPKEEPER_SUBSCRIPTIONS_URL"
        }
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
