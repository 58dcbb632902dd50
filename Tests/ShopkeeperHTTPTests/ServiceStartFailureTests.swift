import Hummingbird
import HummingbirdTesting
import Logging
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperTestSupport
import Testing

/// A service assembled by ``ServiceApplication/make`` applies its migrations before its server starts; when they fail,
/// `testLive` fails the test with their error (`test(.live)` would wait for the port forever).
@Suite struct ServiceStartFailureTests {
    /// A service of schema `schema` on a fresh database, with `migrations`, answering `GET /v1/ping`.
    func withService(
        schema: String,
        migrations: [Migration],
        _ body: @Sendable (Application<RouterResponder<ServiceRequestContext>>) async throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { database in
            var settings = try ServiceSettings.read(service: schema, defaultPort: 0, from: TestEnvironment.reader())
            settings.database = database
            let logger = Logger(label: "start-failure-test")
            let router = Router(context: ServiceRequestContext.self)
            router.get("/v1/ping") { _, _ in "pong" }
            let app = ServiceApplication.make(
                responder: router.buildResponder(), settings: settings, database: database.makeClient(logger: logger),
                migrations: MigrationRunner(schema: schema, migrations: migrations), logger: logger)
            try await body(app)
        }
    }

    @Test func aMigrationThatFailsFailsTheTest() async throws {
        let broken = Migration("0001_broken", sql: "CREATE TABLE broken.copies AS SELECT * FROM broken.no_such_table")
        try await withService(schema: "broken", migrations: [broken]) { app in
            let error = await #expect(throws: (any Error).self) {
                try await app.testLive { _ in Issue.record("the test ran against a service whose start failed") }
            }
            #expect(String(reflecting: error).contains("no_such_table"))
        }
    }

    @Test func aServiceThatStartsIsTested() async throws {
        let table = Migration("0001_table", sql: "CREATE TABLE started.rows (id int PRIMARY KEY)")
        try await withService(schema: "started", migrations: [table]) { app in
            let answer = try await app.testLive { client in
                try await client.execute(uri: "/v1/ping", method: .get) { String(buffer: $0.body) }
            }
            #expect(answer == "pong")
        }
    }
}
