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
    typealias ServiceApp = Application<RouterResponder<ServiceRequestContext>>

    /// Services of schema `schema` on one fresh database, with `migrations`, answering `GET /v1/ping`: `body` makes as
    /// many as it runs (an application runs once).
    func withServices(
        schema: String,
        migrations: [Migration],
        _ body: @Sendable (_ makeService: () -> ServiceApp) async throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { database in
            var settings = try ServiceSettings.read(service: schema, defaultPort: 0, from: TestEnvironment.reader())
            settings.database = database
            let logger = Logger(label: "start-failure-test")
            try await body {
                let router = Router(context: ServiceRequestContext.self)
                router.get("/v1/ping") { _, _ in "pong" }
                return ServiceApplication.make(
                    responder: router.buildResponder(), settings: settings,
                    database: database.makeClient(logger: logger),
                    migrations: MigrationRunner(schema: schema, migrations: migrations), logger: logger)
            }
        }
    }

    static let broken = Migration(
        "0001_broken", sql: "CREATE TABLE broken.copies AS SELECT * FROM broken.no_such_table")

    @Test func aMigrationThatFailsFailsTheTest() async throws {
        try await withServices(schema: "broken", migrations: [Self.broken]) { makeService in
            let error = await #expect(throws: (any Error).self) {
                try await makeService().testLive { _ in
                    Issue.record("the test ran against a service whose start failed")
                }
            }
            #expect(String(reflecting: error).contains("no_such_table"))
        }
    }

    /// A test that throws at once fails alone: its server shuts down gracefully instead of being cancelled while it
    /// still accepts the test client's connection, which traps in swift-nio ("Deinited NIOAsyncWriter without calling
    /// finish()") and ends the whole run. With a cancelled server, about one start in fifty here crashed.
    @Test func aTestThatThrowsAtOnceDoesNotEndTheRun() async throws {
        try await withServices(schema: "broken", migrations: [Self.broken]) { makeService in
            for _ in 0..<200 {
                await #expect(throws: (any Error).self) {
                    try await makeService().testLive { _ in Issue.record("the test ran against a failed start") }
                }
            }
        }
        try await withServices(schema: "thrown", migrations: []) { makeService in
            for _ in 0..<200 {
                await #expect(throws: Thrown.self) {
                    try await makeService().testLive { _ in throw Thrown() }
                }
            }
        }
    }

    @Test func aServiceThatStartsIsTested() async throws {
        let table = Migration("0001_table", sql: "CREATE TABLE started.rows (id int PRIMARY KEY)")
        try await withServices(schema: "started", migrations: [table]) { makeService in
            let answer = try await makeService().testLive { client in
                try await client.execute(uri: "/v1/ping", method: .get) { String(buffer: $0.body) }
            }
            #expect(answer == "pong")
        }
    }
}

/// What a test body threw.
struct Thrown: Error {}
