import Hummingbird
import HummingbirdCore

/// Refuses a URL whose path or query holds an encoded NUL (`%00`): `400 invalid_url` or `400 invalid_query`
/// naming the parameter, before any handler can pass the decoded text to PostgreSQL (see ``NULCharacter``).
package struct NULCharacterMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if Self.hasEncodedNUL(request.uri.path) {
            throw RequestError.invalidURL("The path must not contain an encoded NUL character (%00).")
        }
        if let query = request.uri.query, Self.hasEncodedNUL(query) {
            throw RequestError.invalidQuery(Self.problems(in: request.uri.queryParameters))
        }
        return try await next(request, context)
    }

    /// Whether percent-encoded text holds `%00`.
    static func hasEncodedNUL(_ text: String) -> Bool {
        text.contains("%00")
    }

    /// One problem per query parameter whose name or value holds a NUL (at least one).
    static func problems(in parameters: FlatDictionary<Substring, Substring>) -> [FieldProblem] {
        var names: [String] = []
        for (name, value) in parameters where NULCharacter.isIn(name) || NULCharacter.isIn(value) {
            let shown = String(name).replacingOccurrences(of: "\u{0}", with: "%00")
            if !names.contains(shown) { names.append(shown) }
        }
        if names.isEmpty { names = [""] }
        return names.map { FieldProblem(pointer: "?" + $0, detail: NULCharacter.problem) }
    }
}
