import Foundation

/// A JWS in compact serialization (`header.payload.signature`), split but not yet trusted.
public struct CompactJWS: Sendable {
    /// The protected header segment, still base64url-encoded (also the chain cache's key).
    public let headerSegment: Substring
    public let header: JWSHeader
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// `header.payload`, the bytes the signature covers.
    public let signingInput: Substring

    /// Splits and decodes `token`; `nil` when it is not a well-formed compact JWS.
    public init?(_ token: String) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let headerBytes = Base64URL.decode(segments[0]),
            let header = try? JSONDecoder().decode(JWSHeader.self, from: Data(headerBytes)),
            let payload = Base64URL.decode(segments[1]),
            let signature = Base64URL.decode(segments[2])
        else { return nil }
        self.headerSegment = segments[0]
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = token[segments[0].startIndex..<segments[1].endIndex]
    }
}

/// The JWS protected-header fields Shopkeeper reads and writes.
public struct JWSHeader: Codable, Sendable, Equatable {
    public var alg: String?
    public var kid: String?
    public var typ: String?
    /// The certificate chain, leaf first, each base64 (not base64url) DER.
    public var x5c: [String]?

    public init(alg: String?, kid: String? = nil, typ: String? = nil, x5c: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.x5c = x5c
    }
}
