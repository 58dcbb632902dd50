import Foundation
import Hummingbird
import NIOCore

/// Decoding request bodies and encoding response bodies as JSON, with precise errors.
package enum JSONBody {
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        // Foundation's own `.iso8601` strategy reports a bad date without its coding path; this one names the field.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "must be an RFC 3339 date-time such as 2025-04-20T00:00:00Z")
            }
            return date
        }
        return decoder
    }()

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Reads at most `limit` bytes of body and decodes it; throws ``RequestError`` for anything unacceptable.
    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        if let contentType = request.headers[.contentType],
            !contentType.lowercased().hasPrefix("application/json")
        {
            throw RequestError.unsupportedMediaType(contentType)
        }
        return try decode(type, from: Data(try await collect(from: request, limit: limit).readableBytesView))
    }

    /// The request's body as sent (a signed webhook's bytes, verified before any parsing); more than `limit` bytes
    /// is ``RequestError/bodyTooLarge(limit:)``.
    package static func collect(from request: Request, limit: Int) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limit: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw RequestError.bodyTooLarge(limit: limit)
        }
    }

    /// Decodes `data`, mapping decoding failures to ``RequestError``.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(RequestError) -> T {
        guard !data.isEmpty else { throw .malformedJSON("the body is empty") }
        let value: T
        do {
            value = try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw map(error)
        } catch {
            throw .malformedJSON("unreadable")
        }
        if let pointer = NULCharacter.pointer(in: value, decodedFrom: data) {
            throw .invalid(pointer, NULCharacter.problem)
        }
        return value
    }

    /// Encodes a value as the body of a response.
    package static func response(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:]
    ) throws -> Response {
        response(json: try encoder.encode(value), status: status, headers: extra)
    }

    /// A response whose body is JSON text encoded already (``EmbeddedJSON``).
    package static func response(
        json data: Data,
        status: HTTPResponse.Status = .ok,
        headers extra: HTTPFields = [:]
    ) -> Response {
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(data.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Encodes a value to bytes with the same settings as responses (sorted keys, ISO 8601 dates).
    package static func encode(_ value: some Encodable) throws -> Data {
        try encoder.encode(value)
    }

    static func map(_ error: DecodingError) -> RequestError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .malformedJSON(context.underlyingError.map { "\($0)" } ?? context.debugDescription)
        case .dataCorrupted(let context):
            return .invalid(pointer(context.codingPath), context.debugDescription)
        case .keyNotFound(let key, let context):
            return .invalid(pointer(context.codingPath + [key]), "is required")
        case .valueNotFound(_, let context):
            return .invalid(pointer(context.codingPath), "must not be null")
        case .typeMismatch(let type, let context):
            return .invalid(pointer(context.codingPath), "must be \(describe(type))")
        @unknown default:
            return .malformedJSON("unreadable")
        }
    }

    /// RFC 6901 pointer for a coding path.
    static func pointer(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "/" }
        return path.map { key in "/" + pointerToken(key.intValue.map(String.init) ?? key.stringValue) }.joined()
    }

    /// One reference token of an RFC 6901 pointer (`~` and `/` escaped).
    static func pointerToken(_ name: String) -> String {
        name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "an array"
        default: String(describing: type).contains("Array") ? "an array" : "an object"
        }
    }
}
