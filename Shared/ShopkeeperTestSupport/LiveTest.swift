import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

extension ApplicationProtocol {
    /// Serves the application on a free port and runs `test` against it, as `test(.live)` does, but throws the error
    /// of a start that failed (a migration that does not apply, a database that never answers) instead of
    /// waiting forever for a port: `test(.live)` waits for the server to report its port, which a failed start never
    /// does. Like ``testGracefully(_:_:)``, an error `test` throws reaches the caller after the server has stopped.
    package func testLive<Value>(_ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value
    {
        let failure = StartFailure()
        return try await StartFailureRecordingApplication(base: self, failure: failure).testGracefully(.live) {
            client in
            try failure.check()
            return try await test(client)
        }
    }

    /// `test(setup)`, except that an error `test` throws reaches the caller after the server has shut down
    /// gracefully, instead of cancelling it.
    ///
    /// `test(.live)` rethrows `test`'s error out of the task group that runs the server, and a task group whose body
    /// throws cancels its tasks. A server cancelled while it accepts a connection (the test client connects before
    /// `test` runs, so a test that throws at once races its own connection) traps in swift-nio with "Deinited
    /// NIOAsyncWriter without calling finish()" (apple/swift-nio#3481), which ends the whole test run instead of
    /// failing one test. A graceful shutdown accepts and closes every connection first.
    package func testGracefully<Value>(
        _ setup: TestingSetup, _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let outcome: Result<Value, any Error> = try await self.test(setup) { client in
            do {
                return .success(try await test(client))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// The error a process run before the server's start threw, if any.
final class StartFailure: Sendable {
    private let error = NIOLockedValueBox<(any Error)?>(nil)

    func record(_ error: any Error) {
        self.error.withLockedValue { $0 = $0 ?? error }
    }

    /// Throws the recorded error.
    func check() throws {
        if let error = error.withLockedValue({ $0 }) { throw error }
    }
}

/// `base`, except that a process run before the server starts records its error in `failure` instead of ending the
/// application: the server then starts, so `test(.live)` learns its port, and ``ApplicationProtocol/testLive(_:)``
/// throws the error before any request is sent.
struct StartFailureRecordingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let failure: StartFailure

    var responder: Responder {
        get async throws { try await base.responder }
    }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }

    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] {
        base.processesRunBeforeServerStart.map { process in
            { [failure] in
                do {
                    try failure.check()
                    try await process()
                } catch {
                    failure.record(error)
                }
            }
        }
    }

    @Sendable func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
    }
}
