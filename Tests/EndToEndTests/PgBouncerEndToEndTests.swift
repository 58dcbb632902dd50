import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// Every service through PgBouncer 1.18 (Debian's) in transaction mode, with fewer server connections than the
/// services' pools together (`scripts/with-postgres` starts it with 4 per database; the six pools open up to 60): the
/// migrations of a fresh database, many purchases, customer reads and reports at once, and the customer info cache
/// kept fresh by its `LISTEN` on the direct connection. What a transaction pooler breaks (named prepared statements,
/// session `SET`, session advisory locks, `LISTEN`, unknown startup parameters) would fail one of these.
@Suite(.serialized) struct PgBouncerEndToEndTests {
    static let operatorKey = "op_e2e_pooler_operator_key_0123456789"
    static let customers = 16

    /// `SHOPKEEPER_TEST_PGBOUNCER_URL`, which `scripts/with-postgres` sets, with `database` in place of its database.
    static func pooledURL(database: String) throws -> String {
        guard let url = ProcessInfo.processInfo.environment["SHOPKEEPER_TEST_PGBOUNCER_URL"] else {
            throw ServiceProcess.Failure("SHOPKEEPER_TEST_PGBOUNCER_URL is not set: run the tests with scripts/test")
        }
        var pooled = try DatabaseSettings.parse(url, variable: "SHOPKEEPER_TEST_PGBOUNCER_URL")
        pooled.database = database
        return pooled.url
    }

    @Test func purchasesReadsAndReportsAtOnceThroughATransactionPooler() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            // Every service migrates the fresh database through the pooler; entitlements listens on the direct URL.
            let stack = try await GatewayStack.start(
                databaseURL: try Self.pooledURL(database: database.database), operatorKey: Self.operatorKey,
                environment: ["SHOPKEEPER_DB_POOLER": "transaction", "DATABASE_DIRECT_URL": database.url],
                verifierEnvironment: sandbox.storeEnvironment(state: state),
                // Only a change notification can refresh a cached customer within a minute; the gateway keeps none.
                entitlementsEnvironment: [
                    "SHOPKEEPER_CUSTOMER_CACHE_MS": "60000", "SHOPKEEPER_CUSTOMER_GATEWAY_CACHE_MS": "0",
                ], content: true)
            let gateway = stack.gateway

            let envFile = state.appendingPathComponent("local.env")
            let shop = try SeededDemoShop.seed(
                gatewayURL: gateway.baseURL, operatorKey: Self.operatorKey, sandboxURL: sandbox.baseURL,
                envFile: envFile)
            let (publicKey, secretKey, cli) = (shop.publicKey, shop.secretKey, shop.cliEnvironment)

            // One Apple purchase per customer, bought in the sandbox store.
            var proofs: [(user: String, transaction: String)] = []
            for index in 0..<Self.customers {
                let bought = try runCLI(
                    [
                        "sandbox", "buy", "--product", "com.shopkeeper.demo.garden.extra_garden", "--user",
                        "pgb-\(index)",
                    ],
                    environment: cli)
                try #require(bought.status == 0, "\(bought.output)")
                let json = try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any] ?? [:]
                proofs.append(("pgb-\(index)", try #require(json["signed_transaction"] as? String)))
            }

            // Everything at once: each purchase sent twice (an idempotent retry), each customer read, sales reports.
            let today = Self.today()
            let report = "/v1/admin/reports/sales?from=\(today)&to=\(today)&environment=sandbox&group_by=day"
            let statuses = try await withThrowingTaskGroup(of: (String, Int, String).self) { group in
                for (user, transaction) in proofs + proofs {
                    group.addTask {
                        let (status, body) = try await Self.call(
                            gateway, .POST, "/v1/purchases", key: publicKey,
                            json: ["app_user_id": user, "signed_transaction": transaction])
                        return ("purchase \(user)", status, body)
                    }
                    group.addTask {
                        let (status, body) = try await Self.call(gateway, .GET, "/v1/customers/\(user)", key: publicKey)
                        return ("customer \(user)", status, body)
                    }
                }
                for _ in 0..<8 {
                    group.addTask {
                        let (status, body) = try await Self.call(gateway, .GET, report, key: secretKey)
                        return ("report", status, body)
                    }
                }
                var all: [(String, Int, String)] = []
                for try await result in group { all.append(result) }
                return all
            }
            for (what, status, body) in statuses {
                #expect(status == 200, "\(what): \(status) \(body)")
            }

            // Every purchase granted, once; the report counts each purchase once.
            for (user, _) in proofs {
                let info = try await Self.object(gateway, "/v1/customers/\(user)", key: publicKey)
                let grants = info["entitlements"] as? [String: [String: Any]] ?? [:]
                #expect(grants["extra_garden"]?["active"] as? Bool == true, "\(user): \(info)")
            }
            let totals = try await Self.object(gateway, report, key: secretKey)["totals"] as? [[String: Any]] ?? []
            #expect(totals.compactMap { $0["purchases"] as? Int }.reduce(0, +) == Self.customers, "\(totals)")

            try await Self.expectCacheFollowsNotifications(database: database, user: "pgb-0", gateway, publicKey)
            try await Self.expectSessionsWithinThePool(database: database)
            try await stack.stop()
        }
    }

    /// Reads are served from entitlements' memory (a change made without its trigger does not show), and a change
    /// notified by PostgreSQL reaches them: the listener holds its `LISTEN` on the direct connection.
    static func expectCacheFollowsNotifications(
        database: DatabaseSettings, user: String, _ gateway: ServiceProcess, _ key: String
    ) async throws {
        let customer = "(SELECT customer_id FROM entitlements.aliases WHERE app_user_id = '\(user)')"
        @Sendable func setRefundCount(_ value: Int, silently: Bool) async throws {
            try await TestDatabase.withClient(database) { client in
                let logger = Logger(label: "test")
                try await client.withTransaction(logger: logger) { connection in
                    if silently {
                        try await connection.query("SET LOCAL session_replication_role = replica", logger: logger)
                    }
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL:
                                "UPDATE entitlements.customers SET refund_count = \(value) WHERE customer_id = \(customer)"
                        ), logger: logger)
                }
            }
        }
        func refundCount() async throws -> Int? {
            try await object(gateway, "/v1/customers/\(user)", key: key)["refund_count"] as? Int
        }
        // A render that began before the last notification is not kept: wait for one that is (never, without a cache).
        var servedFromMemory = false
        for value in 1...50 where !servedFromMemory {
            let shown = try await refundCount()
            try await setRefundCount(value, silently: true)
            servedFromMemory = try await refundCount() == shown
        }
        #expect(servedFromMemory, "customer reads are not cached: the listener is not live")
        try await setRefundCount(77, silently: false)
        let shown = try await eventually(timeout: .seconds(5), { try await refundCount() }, until: { $0 == 77 })
        #expect(shown == 77, "the change notification did not reach the cache")
    }

    /// PostgreSQL saw at most the pooler's server connections and the listener's (and this check's own), although
    /// the services' pools together hold many more client connections.
    static func expectSessionsWithinThePool(database: DatabaseSettings) async throws {
        let poolSize = Int(ProcessInfo.processInfo.environment["SHOPKEEPER_TEST_PGBOUNCER_POOL_SIZE"] ?? "") ?? 4
        // The sessions of this test's own earlier checks may take a moment to leave `pg_stat_activity`.
        let sessions = try await TestDatabase.withClient(database) { client in
            let deadline = ContinuousClock.now + .seconds(5)
            while true {
                let rows = try await client.query(
                    """
                    SELECT count(*)::int FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """)
                var count = 0
                for try await value in rows.decode(Int.self) { count = value }
                if count <= poolSize + 1 || ContinuousClock.now > deadline { return count }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(sessions <= poolSize + 1, "\(sessions) sessions of the database")
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    /// A call through the gateway with `key`; the status and the body as text.
    static func call(
        _ gateway: ServiceProcess, _ method: HTTPMethod, _ path: String, key: String, json: [String: Any]? = nil
    ) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: gateway.baseURL + path)
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(key)")
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), String(decoding: bytes.readableBytesView, as: UTF8.self))
    }

    /// A JSON object read through the gateway.
    static func object(_ gateway: ServiceProcess, _ path: String, key: String) async throws -> [String: Any] {
        let (status, body) = try await call(gateway, .GET, path, key: key)
        guard status == 200, let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        else { throw ServiceProcess.Failure("GET \(path): \(status) \(body)") }
        return object
    }
}
