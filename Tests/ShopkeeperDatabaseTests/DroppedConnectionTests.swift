import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import ShopkeeperDatabase

/// A connection the server drops in the middle of a transaction (a failover, a restart, a terminated backend, the
/// pool closing it at shutdown) must fail the request that used it and give its place in the pool back, never hang.
@Suite struct DroppedConnectionTests {
    let logger = Logger(label: "test")

    @Test func aTransactionWhoseConnectionIsDroppedFailsAndThePoolGoesOn() async throws {
        try await dropMidTransaction(then: "a query") { connection, logger in
            try await connection.run("SELECT 1", logger: logger)
        }
    }

    @Test func aPreparedStatementAfterTheDropFailsToo() async throws {
        try await dropMidTransaction(then: "a prepared statement") { connection, logger in
            _ = try await connection.run(BackendPID.self, PostgresBindings(), logger: logger) {
                try $0.decode(Int32.self)
            }
        }
    }

    /// In a transaction on a one-connection pool, the server terminates the connection, then `statement` runs on
    /// it: the transaction must fail with ``DatabaseConnectionLost`` within 30 s, and the pool answer the next query
    /// (a lease the dropped transaction kept would stop every later one).
    private func dropMidTransaction(
        then what: String,
        _ statement: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void
    ) async throws {
        var settings = try TestDatabase.settings()
        settings.maximumConnections = 1
        try await TestDatabase.withClient(settings) { client in
            let logger = self.logger
            let outcome = await Deadline.result(within: .seconds(30)) {
                try await client.transaction(logger: logger) { connection in
                    let pid = try await connection.run(BackendPID.self, PostgresBindings(), logger: logger) {
                        try $0.decode(Int32.self)
                    }.first
                    try await TestDatabase.withClient { other in
                        try await other.run("SELECT pg_terminate_backend(\(pid ?? 0))", logger: logger)
                    }
                    // Give the client time to see the connection close, so the statement meets a closed one.
                    try await Task.sleep(for: .milliseconds(300))
                    try await statement(connection, logger)
                }
            }
            switch outcome {
            case nil: Issue.record("the transaction on the dropped connection never finished")
            case .success?: Issue.record("\(what) on a terminated connection succeeded")
            case .failure(let error)?: #expect(error is DatabaseConnectionLost)
            }
            let next = await Deadline.result(within: .seconds(30)) {
                try await client.query("SELECT 41 + 1").collect().first?.decode(Int.self)
            }
            let answer = try #require(next, "the pool did not answer after the drop").get()
            #expect(answer == 42)
        }
    }

    enum BackendPID: PreparedSQL {
        static let sql = "SELECT pg_backend_pid()"
    }
}

/// Runs `body` in a task of its own and waits at most `within` for it: `nil` when it has not finished by then (the
/// task is left running), so a test records a hang as a failure instead of hanging the suite.
enum Deadline {
    static func result<T: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let task = Task { try await body() }
        let claimed = NIOLockedValueBox(false)
        let claim: @Sendable () -> Bool = {
            claimed.withLockedValue { taken in
                defer { taken = true }
                return !taken
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
            Task {
                let result = await task.result
                if claim() { continuation.resume(returning: result) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if claim() { continuation.resume(returning: nil) }
            }
        }
    }
}
