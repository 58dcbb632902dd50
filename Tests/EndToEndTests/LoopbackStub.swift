import Hummingbird
import HummingbirdTesting
import Logging
import ShopkeeperTestSupport

/// A small HTTP stand-in on 127.0.0.1 (a webhook receiver, a trace collector) for the duration of a test: `make`
/// builds the stub from its base URL, `routes` serve it (they reach it through ``Late``, set once it exists).
enum LoopbackStub {
    static func run<Stub: Sendable>(
        label: String,
        routes: (Router<BasicRequestContext>, Late<Stub>) -> Void,
        make: @Sendable (String) -> Stub,
        _ body: @Sendable (Stub) async throws -> Void
    ) async throws {
        let late = Late<Stub>()
        let router = Router()
        routes(router, late)
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.testLive { client in
            guard let port = client.port else { throw ServiceProcess.Failure("\(label) has no port") }
            let stub = make("http://127.0.0.1:\(port)")
            await late.set(stub)
            try await body(stub)
        }
    }

    /// A value set once the server it serves is listening.
    actor Late<Value: Sendable> {
        private(set) var value: Value?
        func set(_ value: Value) { self.value = value }
    }
}
