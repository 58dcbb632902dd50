import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperModels

/// A small typed client of the gateway's operator and admin APIs.
struct GatewayAPIClient {
    let baseURL: String
    let bearer: String

    struct Failure: Error, CustomStringConvertible {
        var status: UInt
        var body: String
        var description: String { "HTTP \(status): \(body)" }
    }

    func send<Response: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: (some Encodable)? = Optional<String>.none,
        as: Response.Type
    ) async throws -> Response {
        var json: Data?
        if let body {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            json = try encoder.encode(body)
        }
        let data = try await send(method, path, json: json)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Response.self, from: data.isEmpty ? Data("null".utf8) : data)
    }

    /// Sends `json` as it is and returns the body of a 2xx answer; any other status throws ``Failure``.
    func send(_ method: HTTPMethod, _ path: String, json: Data?) async throws -> Data {
        try await Self.execute(method, url: baseURL.trimmingSuffix("/") + path, bearer: bearer, json: json)
    }

    /// `GET path` with `query` (encoded here) and an `Accept` header; the body of a 2xx answer.
    func get(_ path: String, query: [URLQueryItem], accept: String) async throws -> Data {
        var components = URLComponents()
        components.queryItems = query
        // `+` is a space to many servers: sent encoded, as every other reserved character.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        let url = baseURL.trimmingSuffix("/") + path + (encoded.isEmpty ? "" : "?" + encoded)
        return try await Self.execute(.GET, url: url, bearer: bearer, json: nil, accept: accept)
    }

    /// `method path` with `body` sent as `contentType` (a file as it is); the body of a 2xx answer.
    func send(_ method: HTTPMethod, _ path: String, body: Data, contentType: String) async throws -> Data {
        try await Self.execute(
            method, url: baseURL.trimmingSuffix("/") + path, bearer: bearer, json: body, contentType: contentType)
    }

    /// One request to any URL (`bearer` optional, other `headers` added) whose body `json` is sent as `contentType`
    /// (JSON unless said), the answer's body when the status is 2xx.
    static func execute(
        _ method: HTTPMethod, url: String, bearer: String?, json: Data?, accept: String? = nil,
        headers: [String: String] = [:], contentType: String = "application/json"
    ) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let accept { request.headers.add(name: "Accept", value: accept) }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            throw Failure(status: response.status.code, body: String(decoding: data, as: UTF8.self))
        }
        return data
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
