import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperStores

/// `POST /google/token`: Google's OAuth 2.0 token endpoint for the JWT-bearer grant of service accounts.
struct GoogleOAuthController {
    /// Seconds an access token lives, as Google reports it.
    static let accessTokenLifetime = 3599

    let store: SandboxStore
    let traffic: StoreTraffic

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("token") { request, _ in
            try await traffic.observe(.googleToken) { _ in try await self.token(request) }
        }
        return routes
    }

    private func token(_ request: Request) async throws -> Response {
        let buffer = try await request.body.collect(upTo: 64 * 1024)
        let form = FormURLEncoded.parse(String(buffer: buffer))
        guard form["grant_type"] == GoogleServiceAccountClaims.grantType else {
            throw GoogleOAuthError(
                status: .badRequest, error: "unsupported_grant_type",
                errorDescription: "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            throw GoogleOAuthError(
                status: .badRequest, error: "invalid_request", errorDescription: "Missing required parameter: assertion"
            )
        }
        let account = try await GoogleAssertionVerifier(store: store).verify(assertion)
        let issued = try await store.issueAccessToken(
            clientEmail: account.clientEmail, lifetime: Int64(Self.accessTokenLifetime), at: Date())
        return try JSONBody.response(
            GoogleTokenResponse(accessToken: issued.token, expiresIn: Self.accessTokenLifetime),
            headers: [.cacheControl: "no-cache, no-store, max-age=0, must-revalidate"])
    }
}

/// `application/x-www-form-urlencoded` bodies.
enum FormURLEncoded {
    /// The fields of `text`; a repeated name keeps its first value.
    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if fields[name] == nil, let value { fields[name] = value }
        }
        return fields
    }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
