import Foundation
import Hummingbird

/// The reference point of the HTTP benchmarks: a bare Hummingbird server answering "Hello, world!" on every GET
/// path, also used as the trivial upstream behind the gateway and behind nginx.
@main
struct HelloServer {
    static func main() async throws {
        let port = Int(ProcessInfo.processInfo.environment["PORT"] ?? "") ?? 9090
        let router = Router()
        router.get("/") { _, _ in "Hello, world!" }
        router.get("**") { _, _ in "Hello, world!" }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
