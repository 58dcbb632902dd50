import AsyncHTTPClient
import ServiceLifecycle

/// Runs nothing, but shuts an HTTP client down when the application stops.
package struct HTTPClientService: Service {
    package let client: HTTPClient

    package init(client: HTTPClient) {
        self.client = client
    }

    package func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
