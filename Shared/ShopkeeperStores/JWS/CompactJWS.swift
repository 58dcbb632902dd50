import Foundation

/// A JWS in compact serialization (`header.payload.signature`), split but not yet trusted.
package struct CompactJWS: Sendable {
    /// The protected header segment, still base64url-encoded (also the chain cache's key).
    package let headerSegment: Substring
    package let header: JWSHeader
    /// The decoded payload bytes.
    package let payload: [UInt8]
    /// The decoded signature bytes.
    package let signature: [UInt8]
    /// `header.payload`, the bytes the signature covers.
    package let signingInput: Substring

    /// Splits and decodes `token`; `nil` when it is not a well-formed compact JWS.
    package init?(_ token: String) {
        guard let segments = Segments(token), let header = JWSHeader(segment: segments.header),
            let payload = Base64URL.decode(segments.payload),
            let signature = Base64URL.decode(segments.signature)
        else { return nil }
        self.headerSegment = segments.header
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = segments.signingInput
    }

    /// The three segments of a compact JWS, found without decoding anything.
    package struct Segments: Sendable {
        package let header: Substring
        package let payload: Substring
        package let signature: Substring
        /// `header.payload`.
        package let signingInput: Substring

        /// `nil` unless `token` has exactly three segments and non-empty header and payload.
        package init?(_ token: String) {
            // Find the dots on the contiguous UTF-8 bytes (a scan of a few kilobytes per transaction).
            let dots =
                token.utf8.withContiguousStorageIfAvailable { Self.dotOffsets(in: $0) }
                ?? Array(token.utf8).withUnsafeBufferPointer { Self.dotOffsets(in: $0) }
            guard let dots, dots.first > 0, dots.second > dots.first + 1 else { return nil }
            let utf8 = token.utf8
            let firstDot = utf8.index(utf8.startIndex, offsetBy: dots.first)
            let secondDot = utf8.index(utf8.startIndex, offsetBy: dots.second)
            header = token[token.startIndex..<firstDot]
            payload = token[utf8.index(after: firstDot)..<secondDot]
            signature = token[utf8.index(after: secondDot)...]
            signingInput = token[token.startIndex..<secondDot]
        }

        /// The offsets of exactly two dots, or `nil`.
        private static func dotOffsets(in bytes: UnsafeBufferPointer<UInt8>) -> (first: Int, second: Int)? {
            guard let base = bytes.baseAddress else { return nil }
            func dot(from start: Int) -> Int? {
                guard start < bytes.count,
                    let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
                else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let first = dot(from: 0), let second = dot(from: first + 1), dot(from: second + 1) == nil else {
                return nil
            }
            return (first, second)
        }
    }
}

/// The JWS protected-header fields Shopkeeper reads and writes.
package struct JWSHeader: Codable, Sendable, Equatable {
    package var alg: String?
    package var kid: String?
    package var typ: String?
    /// The certificate chain, leaf first, each base64 (not base64url) DER.
    package var x5c: [String]?

    /// The header a base64url header segment holds; `nil` when it is not base64url JSON.
    package init?(segment: Substring) {
        guard let bytes = Base64URL.decode(segment),
            let header = try? JSONDecoder().decode(JWSHeader.self, from: Data(bytes))
        else { return nil }
        self = header
    }

    package init(alg: String?, kid: String? = nil, typ: String? = nil, x5c: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.x5c = x5c
    }
}
