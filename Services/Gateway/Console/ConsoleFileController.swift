import Hummingbird
import Logging
import NIOPosix
import ShopkeeperHTTP

/// `GET /console` and the files below it: the console's pages, styles, scripts and images from one folder
/// (``ConsoleFiles``). `/console` is `index.html`. Answers carry an `ETag` and `Cache-Control: no-cache` (a browser
/// asks again each time and gets `304 Not Modified` while the file is unchanged: names carry no hash, there being no
/// build step); the browser protections come from ``ConsoleHeadersMiddleware``.
struct ConsoleFileController: Sendable {
    /// Where the files come from.
    enum Source: Sendable {
        /// Read once, at start.
        case loaded(ConsoleFiles)
        /// Read again on every request (`SHOPKEEPER_CONSOLE_RELOAD`).
        case reloading(directory: String)
        /// No folder: every console path is 404.
        case none
    }

    let source: Source

    /// The source `settings` ask for; reads the folder now unless it is read on each request.
    static func source(_ settings: ConsoleSettings) throws -> Source {
        guard let directory = settings.directory else { return .none }
        return settings.reload ? .reloading(directory: directory) : .loaded(try ConsoleFiles.load(from: directory))
    }

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<GatewayRequestContext> {
        let routes = RouteCollection(context: GatewayRequestContext.self)
        routes.get("/console", use: serve)
        routes.get("/console/**", use: serve)
        return routes
    }

    @Sendable func serve(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        guard let file = try await files()?.file(forPath: request.uri.path) else { throw RequestError.notFound }
        var headers: HTTPFields = [.eTag: file.etag, .cacheControl: "no-cache"]
        if let match = request.headers[.ifNoneMatch], ETagMatch.matches(match, etag: file.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        headers[.contentLength] = String(file.body.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }

    private func files() async throws -> ConsoleFiles? {
        switch source {
        case .loaded(let files): return files
        case .none: return nil
        case .reloading(let directory):
            return try await NIOThreadPool.singleton.runIfActive { try ConsoleFiles.load(from: directory) }
        }
    }
}
