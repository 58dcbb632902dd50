import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ShopkeeperCore
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing
import X509

@testable import SandboxStore

/// A sandbox store on a fresh state directory (or a given one), and helpers to call it as the verifier would.
struct SandboxHarness {
    let client: any TestClientProtocol
    let stateDirectory: URL

    /// Runs a sandbox store in `mode` on `stateDirectory` (a new temporary one, removed afterwards, when `nil`).
    static func run(
        stateDirectory: URL? = nil,
        environment: [String: String] = [:],
        mode: TestingSetup = .router,
        _ body: @Sendable (SandboxHarness) async throws -> Void
    ) async throws {
        let directory = stateDirectory ?? Self.temporaryDirectory()
        defer { if stateDirectory == nil { try? FileManager.default.removeItem(at: directory) } }
        var values = ["SHOPKEEPER_PORT": "0", "SHOPKEEPER_SANDBOX_STATE_DIR": directory.path]
        values.merge(environment) { _, new in new }
        let app = try await buildApplication(settings: try SandboxStoreSettings.read(from: EnvironmentReader(values)))
        try await app.testGracefully(mode) { client in
            try await body(SandboxHarness(client: client, stateDirectory: directory))
        }
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-store-test-\(UUID().uuidString)")
    }

    /// Sends a request; `json` is encoded with `JSONSerialization`, `bearer` goes into `Authorization`.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ path: String, json: [String: Any]? = nil, bearer: String? = nil,
        body: ByteBuffer? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = extra
        var payload = body
        if let json {
            headers[.contentType] = "application/json"
            payload = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        }
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return try await client.execute(uri: path, method: method, headers: headers, body: payload)
    }

    /// The root certificate the sandbox signs with, as a verifier configured for development would load it.
    func root() async throws -> Certificate {
        let response = try await send(.get, "/sandbox/root.pem")
        #expect(response.status == .ok)
        return try Certificate(pemEncoded: String(buffer: response.body))
    }

    /// Makes an App Store purchase; `fields` override the defaults (a sandbox consumable of `com.example.garden`).
    func buyApple(_ fields: [String: Any] = [:]) async throws -> AppleTransactionCreated {
        try await buy(
            "/sandbox/apple/transactions",
            defaults: ["bundle_id": "com.example.garden", "product_id": "fertilizer", "type": "Consumable"],
            overriddenBy: fields)
    }

    /// Posts a purchase to the sandbox's `path`, `fields` over `defaults`, and decodes the `201` answer: what the
    /// store made.
    private func buy<Created: Decodable>(
        _ path: String, defaults: [String: Any], overriddenBy fields: [String: Any]
    ) async throws -> Created {
        let response = try await send(.post, path, json: defaults.merging(fields) { _, new in new })
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try decode(Created.self, response)
    }

    /// A new App Store Connect key for `bundleID`.
    func appleKey(bundleID: String = "com.example.garden", issuerID: String? = nil) async throws -> AppleAPIKeyCreated {
        var json: [String: Any] = ["bundle_id": bundleID]
        if let issuerID { json["issuer_id"] = issuerID }
        let response = try await send(.post, "/sandbox/apple/api-keys", json: json)
        #expect(response.status == .created)
        return try decode(AppleAPIKeyCreated.self, response)
    }

    /// A new Google service account key file for `packageName`.
    func serviceAccount(packageName: String = "com.example.garden") async throws -> GoogleServiceAccountKey {
        let response = try await send(.post, "/sandbox/google/service-accounts", json: ["package_name": packageName])
        #expect(response.status == .created)
        return try decode(GoogleServiceAccountKey.self, response)
    }

    /// Exchanges a signed assertion at `/google/token`.
    func tokenRequest(assertion: String, grantType: String = GoogleServiceAccountClaims.grantType) async throws
        -> TestResponse
    {
        let form =
            "grant_type=\(grantType.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            + "&assertion=\(assertion)"
        return try await send(
            .post, "/google/token", body: ByteBuffer(string: form),
            headers: [.contentType: "application/x-www-form-urlencoded"])
    }

    /// An access token for a new service account of `packageName`.
    func googleAccessToken(packageName: String = "com.example.garden") async throws -> String {
        let key = try await serviceAccount(packageName: packageName)
        let response = try await tokenRequest(
            assertion: try RS256Signer(serviceAccount: key).sign(GoogleServiceAccountClaims(key: key)))
        #expect(response.status == .ok)
        return try decode(GoogleTokenResponse.self, response).accessToken
    }

    /// Makes a Google Play purchase; `fields` override the defaults (a test one-time product of `com.example.garden`).
    func buyGoogle(_ fields: [String: Any] = [:]) async throws -> GooglePurchaseCreated {
        try await buy(
            "/sandbox/google/purchases",
            defaults: ["package_name": "com.example.garden", "product_id": "fertilizer", "type": "product"],
            overriddenBy: fields)
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(response.body.readableBytesView))
    }

    /// The body as a JSON object.
    func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }
}

/// Bearer tokens for the App Store Server API, signed as the verifier signs them.
enum AppleBearer {
    static func token(
        _ key: AppleAPIKeyCreated, bundleID: String? = nil, audience: String = AppStoreServerAPIClaims.audience,
        issuedAt: Date = Date(), lifetime: Int64 = 1200, keyID: String? = nil,
        signingKey: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let claims = AppStoreServerAPIClaims(
            iss: key.issuerId, iat: iat, exp: iat + lifetime, aud: audience, bid: bundleID ?? key.bundleId)
        let privateKey = try signingKey ?? P256.Signing.PrivateKey(pemRepresentation: key.privateKey)
        let signer = try ES256Signer(
            key: privateKey, header: JWSHeader(alg: "ES256", kid: keyID ?? key.keyId, typ: "JWT"))
        return try signer.sign(claims)
    }
}

/// The payload of a compact JWS as a JSON object, to check field names and value types.
func jwsPayloadObject(_ token: String) throws -> [String: Any] {
    let jws = try #require(CompactJWS(token))
    return try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
}
