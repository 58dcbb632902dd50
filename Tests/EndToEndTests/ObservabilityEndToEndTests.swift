import AsyncHTTPClient
import Foundation
import NIOCore
import ShopkeeperTestSupport
import Testing

/// The business metrics and the traces, read the way an operator reads them: `/metrics` scraped from the running
/// executables after real purchases through the gateway, and spans exported to a collector.
@Suite(.serialized) struct ObservabilityEndToEndTests {
    @Test func businessMetricsCountWhatRealRequestsDid() async throws {
        try await ObservedShop.run(environment: ["SHOPKEEPER_BACKLOG_METRICS_INTERVAL_SECONDS": "1"]) { shop in
            let verifier = shop.stack.verifier
            let apple = try shop.buy(["--product", "com.shopkeeper.demo.garden.extra_garden", "--user", "alice"])
            let jws = try #require(apple["signed_transaction"] as? String)
            let purchases = "shopkeeper_purchases_total"

            let (status, answer, _) = try await shop.purchase(["app_user_id": "alice", "signed_transaction": jws])
            #expect(status == 200, "\(answer)")
            var metrics = try await verifier.metrics()
            #expect(metrics.value(purchases, ["store": "app_store", "outcome": "granted"]) == 1)
            #expect(
                metrics.value(
                    "shopkeeper_verifications_total", ["proof_kind": "signed_transaction", "outcome": "verified"]) == 1)

            // The same transaction again, then its receipt (read here: the sandbox's root is trusted): nothing new.
            #expect(try await shop.purchase(["app_user_id": "alice", "signed_transaction": jws]).0 == 200)
            let receipt = try await shop.purchase(["app_user_id": "alice", "receipt_data": apple["receipt_data"] ?? ""])
            #expect(receipt.0 == 200, "\(receipt.1)")
            metrics = try await verifier.metrics()
            #expect(metrics.value(purchases, ["store": "app_store", "outcome": "granted"]) == 1)
            #expect(metrics.value(purchases, ["store": "app_store", "outcome": "duplicate"]) == 2)

            // A forged JWS: refused with a code, counted under that code.
            let forged = try await shop.purchase([
                "app_user_id": "alice", "signed_transaction": String(jws.dropLast(4)),
            ])
            #expect(forged.0 == 422, "\(forged.1)")
            let code = try #require(forged.1["code"] as? String)
            metrics = try await verifier.metrics()
            #expect(
                metrics.value(
                    "shopkeeper_verification_failures_total", ["proof_kind": "signed_transaction", "code": code]) == 1)
            #expect(metrics.value(purchases, ["store": "app_store", "outcome": "rejected"]) == 1)
            #expect(metrics.value(purchases, ["store": "app_store", "outcome": "granted"]) == 1)

            // A Play purchase is counted under its own store.
            let google = try shop.buy(["--store", "google", "--product", "fertilizer_10", "--user", "bob"])
            let play = try await shop.purchase([
                "app_user_id": "bob", "purchase_token": google["purchase_token"] ?? "", "product_id": "fertilizer_10",
            ])
            #expect(play.0 == 200, "\(play.1)")
            metrics = try await verifier.metrics()
            #expect(metrics.value(purchases, ["store": "play_store", "outcome": "granted"]) == 1)
            // The Play Developer API verified it, with an access token from Google's token endpoint: both calls are
            // counted and timed.
            for endpoint in ["play_developer_api", "google_oauth_token"] {
                let call = ["store": "play_store", "endpoint": endpoint]
                #expect(
                    (metrics.value("shopkeeper_store_request_duration_seconds_count", call) ?? 0) >= 1, "\(endpoint)")
                #expect(
                    metrics.value("shopkeeper_store_requests_total", call.merging(["result": "2xx"]) { $1 })
                        == metrics.value("shopkeeper_store_request_duration_seconds_count", call), "\(endpoint)")
            }

            // The caches: a customer launch answered by the gateway from the stored info, the catalog twice within the
            // gateway's micro-cache, a customer read twice within the entitlements cache's second (with a query
            // string: the service's to answer); the key was remembered after the first request.
            let gatewayMetrics = try await ShopkeeperTestSupport.eventually(
                {
                    _ = try await shop.get("/v1/customers/alice")
                    _ = try await shop.get("/v1/customers/alice")
                    _ = try await shop.get("/v1/catalog?platform=app_store")
                    _ = try await shop.get("/v1/catalog?platform=app_store")
                    return try await shop.stack.gateway.metrics(port: shop.stack.gateway.metricsPort)
                },
                until: {
                    ($0.value("shopkeeper_cache_lookups_total", ["cache": "gateway_response", "result": "hit"]) ?? 0)
                        >= 1
                        && ($0.value(
                            "shopkeeper_cache_lookups_total", ["cache": "stored_customer_info", "result": "hit"]) ?? 0)
                            >= 1
                })
            #expect(
                (gatewayMetrics.value("shopkeeper_cache_lookups_total", ["cache": "api_key", "result": "hit"]) ?? 0)
                    >= 1)
            #expect(
                (gatewayMetrics.value("shopkeeper_cache_lookups_total", ["cache": "gateway_response", "result": "hit"])
                    ?? 0) >= 1)
            let entitlementsMetrics = try await ShopkeeperTestSupport.eventually(
                {
                    _ = try await shop.get("/v1/customers/alice?from=service")
                    _ = try await shop.get("/v1/customers/alice?from=service")
                    return try await shop.stack.entitlements.metrics()
                },
                until: {
                    ($0.value("shopkeeper_cache_lookups_total", ["cache": "customer_info", "result": "hit"]) ?? 0) >= 1
                })
            #expect(
                (entitlementsMetrics.value(
                    "shopkeeper_cache_lookups_total", ["cache": "customer_info", "result": "hit"]) ?? 0) >= 1)
            #expect(
                (entitlementsMetrics.value(
                    "shopkeeper_cache_lookups_total", ["cache": "customer_info", "result": "miss"]) ?? 0) >= 1)

            // The backlog gauges, read from the database every second: every purchase above was applied at once,
            // and no notification or webhook waits.
            let gauges = try await ShopkeeperTestSupport.eventually(
                { try await verifier.metrics() },
                until: {
                    $0.value("shopkeeper_apply_pending") != nil && $0.value("shopkeeper_notification_backlog") != nil
                })
            #expect(gauges.value("shopkeeper_apply_pending") == 0)
            #expect(gauges.value("shopkeeper_notification_backlog") == 0)
            #expect(gauges.value("shopkeeper_notification_backlog_oldest_seconds") == 0)
            let webhooks = try await ShopkeeperTestSupport.eventually(
                { try await shop.stack.entitlements.metrics() },
                until: { $0.value("shopkeeper_webhook_backlog") != nil })
            #expect(webhooks.value("shopkeeper_webhook_backlog") == 0)

            // Every background loop is a LeasedPoller, counted under its name.
            let rounds = try await ShopkeeperTestSupport.eventually(
                { try await verifier.metrics() },
                until: {
                    ($0.value("shopkeeper_poller_runs_total", ["poller": "notification_worker", "outcome": "idle"]) ?? 0)
                        >= 1
                })
            #expect(
                (rounds.value("shopkeeper_poller_runs_total", ["poller": "notification_worker", "outcome": "idle"]) ?? 0)
                    >= 1)
            #expect(
                rounds.value("shopkeeper_poller_last_success_timestamp_seconds", ["poller": "pending_apply"]) != nil)

            // Every series the Grafana dashboard queries is one these services emit (webhook attempts aside: this
            // shop has no webhook, so none was attempted).
            var scraped = gatewayMetrics.names.union(webhooks.names).union(gauges.names)
            for service in [shop.stack.catalog, shop.stack.subscriptions] {
                scraped.formUnion(try await service.metrics().names)
            }
            let queried = try Self.dashboardMetrics().subtracting(["shopkeeper_webhook_deliveries_total"])
            #expect(!queried.isEmpty)
            #expect(queried.subtracting(scraped).isEmpty, "not emitted: \(queried.subtracting(scraped).sorted())")
        }
    }

    /// The metric names `deploy/grafana/shopkeeper-dashboard.json` queries.
    static func dashboardMetrics() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/grafana/shopkeeper-dashboard.json")
        let dashboard = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let panels = dashboard?["panels"] as? [[String: Any]] ?? []
        let queries = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        return Set(
            queries.flatMap { query in
                query.matches(of: #/\b(?:shopkeeper|hb|http_server)_[a-z0-9_]+/#).map { String($0.output) }
            })
    }

    @Test func oneTraceSpansTheGatewayAndTheServicesBehindIt() async throws {
        try await OTLPReceiver.run { receiver in
            let tracing = [
                "SHOPKEEPER_TRACING": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100",
            ]
            try await ObservedShop.run(environment: tracing) { shop in
                // A caller's trace continues through the gateway into the entitlements service.
                let callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
                let read = try await shop.get(
                    "/v1/customers/alice", headers: [("traceparent", "00-\(callerTrace)-00f067aa0ba902b7-01")])
                #expect(read.requestID != nil)
                // Spans arrive in batches per service, each as it ends (a service's calls of its own, such as
                // AsyncHTTPClient's, are spans of that service too): wait for the very spans asserted on.
                let spans = try await ShopkeeperTestSupport.eventually(
                    { await receiver.spans.filter { $0.traceID == callerTrace } },
                    until: { spans in
                        spans.contains { $0.service == "shopkeeper-gateway" && $0.parentSpanID == "00f067aa0ba902b7" }
                            && spans.contains { $0.service == "shopkeeper-entitlements" }
                    })
                let gatewaySpan = try #require(
                    spans.first { $0.service == "shopkeeper-gateway" && $0.parentSpanID == "00f067aa0ba902b7" },
                    "\(spans)")
                // The upstream got the gateway's span as its parent: the proxy sent `traceparent`.
                let entitlementsSpan = try #require(
                    spans.first { $0.service == "shopkeeper-entitlements" && $0.parentSpanID == gatewaySpan.spanID },
                    "\(spans)")
                // The request id is on both spans.
                #expect(gatewaySpan.attributes["http.response.header.x_request_id"] == read.requestID)
                #expect(entitlementsSpan.attributes["http.request.header.x_request_id"] == read.requestID)

                // A purchase starts a trace at the gateway that reaches the verifier, and through the verifier's
                // signed calls the entitlements service.
                let apple = try shop.buy(["--product", "com.shopkeeper.demo.garden.extra_garden", "--user", "alice"])
                let purchase = try await shop.purchase([
                    "app_user_id": "alice", "signed_transaction": apple["signed_transaction"] ?? "",
                ])
                #expect(purchase.0 == 200, "\(purchase.1)")
                let requestID = try #require(purchase.requestID)
                let root = try await ShopkeeperTestSupport.eventually(
                    {
                        await receiver.spans.first {
                            $0.service == "shopkeeper-gateway"
                                && $0.attributes["http.response.header.x_request_id"] == requestID
                        }
                    }, until: { $0 != nil })
                let traceID = try #require(root?.traceID)
                let rootSpanID = root?.spanID
                let trace = try await ShopkeeperTestSupport.eventually(
                    { await receiver.spans.filter { $0.traceID == traceID } },
                    until: { spans in
                        spans.contains { $0.service == "shopkeeper-verifier" && $0.parentSpanID == rootSpanID }
                            && spans.contains { $0.service == "shopkeeper-entitlements" }
                    })
                let services = Set(trace.map(\.service))
                #expect(
                    services.isSuperset(of: ["shopkeeper-gateway", "shopkeeper-verifier", "shopkeeper-entitlements"]),
                    "\(trace)")
                let verifierSpan = try #require(
                    trace.first { $0.service == "shopkeeper-verifier" && $0.parentSpanID == rootSpanID }, "\(trace)")
                #expect(verifierSpan.attributes["http.request.header.x_request_id"] == requestID)
            }
        }
    }
}

/// The demo shop on a real stack with the sandbox store, for the observability tests: seeded with the CLI and
/// connected to the sandbox, as the README's first purchase.
struct ObservedShop {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    let stack: GatewayStack
    let publicKey: String
    let cliEnvironment: [String: String]

    /// Starts the sandbox and the stack with `environment` added to every service's, seeds the shop, runs `body`.
    static func run(environment: [String: String], _ body: @Sendable (ObservedShop) async throws -> Void)
        async throws
    {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: operatorKey, environment: environment,
                verifierEnvironment: sandbox.storeEnvironment(state: state))
            let envFile = state.appendingPathComponent("local.env")
            let seeded = try SeededDemoShop.seed(
                gatewayURL: stack.gateway.baseURL, operatorKey: operatorKey, sandboxURL: sandbox.baseURL,
                envFile: envFile)
            let shop = ObservedShop(
                stack: stack, publicKey: seeded.publicKey, cliEnvironment: seeded.cliEnvironment)
            do {
                try await body(shop)
            } catch {
                throw ServiceProcess.Failure("\(error)\nverifier log: \(stack.verifier.logTail())")
            }
            try await stack.stop()
            _ = try? await sandbox.terminate()
        }
    }

    /// A purchase in the sandbox store with the CLI (`shopkeeper sandbox buy`): its proofs.
    func buy(_ arguments: [String]) throws -> [String: Any] {
        let bought = try runCLI(["sandbox", "buy"] + arguments, environment: cliEnvironment)
        guard bought.status == 0 else { throw ServiceProcess.Failure("buy: \(bought.output)") }
        return (try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any]) ?? [:]
    }

    /// `POST /v1/purchases` through the gateway with the public key: status, answer and request id.
    func purchase(_ body: [String: Any]) async throws -> (Int, [String: Any], requestID: String?) {
        let answer = try await StoreWorld.send(
            .POST, stack.gateway.baseURL + "/v1/purchases", body: body,
            headers: [("authorization", "Bearer \(publicKey)")])
        return (answer.status, answer.json, answer.headers.first(name: "x-request-id"))
    }

    /// A `GET` through the gateway with the public key.
    func get(_ path: String, headers: [(String, String)] = []) async throws -> (status: Int, requestID: String?) {
        var request = HTTPClientRequest(url: stack.gateway.baseURL + path)
        request.headers.add(name: "authorization", value: "Bearer \(publicKey)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), response.headers.first(name: "x-request-id"))
    }
}
