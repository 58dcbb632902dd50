import Foundation
import SwiftASN1

/// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, the unit of
/// Apple's receipt payload; a payload is a `SET OF ReceiptAttribute`.
struct ReceiptAttribute: DERSerializable, Sendable, Equatable {
    var type: Int64
    var version: Int64
    /// The DER or BER of the inner value (a string, a date, an integer, or a nested attribute set).
    var value: [UInt8]

    init(type: Int64, version: Int64 = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = value
    }

    func serialize(into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(type)
            try coder.serialize(version)
            try coder.serialize(ASN1OctetString(contentBytes: value[...]))
        }
    }

    // MARK: Writing

    /// The DER of a `SET OF ReceiptAttribute`.
    static func serializeSet(_ attributes: [ReceiptAttribute]) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.serializeSetOf(attributes)
        return coder.serializedBytes
    }

    static func utf8(_ string: String) throws -> [UInt8] {
        try der(ASN1UTF8String(string))
    }

    static func integer(_ value: Int64) throws -> [UInt8] {
        try der(value)
    }

    static func date(_ date: Date?) throws -> [UInt8] {
        guard let date else { return try der(ASN1IA5String("")) }
        guard let text = ReceiptDate.rfc3339(date) else {
            throw AppReceiptError.malformed("date \(date) cannot be written as RFC 3339")
        }
        return try der(ASN1IA5String(text))
    }

    private static func der(_ value: some DERSerializable) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.serialize(value)
        return coder.serializedBytes
    }

    // MARK: Reading

    /// Parses a BER `SET OF ReceiptAttribute`. Xcode wraps the set in an extra OCTET STRING, which is accepted.
    static func parseSet(_ bytes: [UInt8]) throws(AppReceiptError) -> [ReceiptAttribute] {
        var node = try parse(bytes, what: "attribute set")
        if node.identifier == .octetString {
            node = try parse(try octets(node, what: "wrapped attribute set"), what: "attribute set")
        }
        guard node.identifier == .set, case .constructed(let elements) = node.content else {
            throw .malformed("expected a SET of receipt attributes, found \(node.identifier)")
        }
        var attributes: [ReceiptAttribute] = []
        for element in elements {
            attributes.append(try parseAttribute(element))
        }
        return attributes
    }

    private static func parseAttribute(_ node: ASN1Node) throws(AppReceiptError) -> ReceiptAttribute {
        guard node.identifier == .sequence, case .constructed(let fields) = node.content else {
            throw .malformed("a receipt attribute is not a SEQUENCE")
        }
        var iterator = fields.makeIterator()
        guard let typeNode = iterator.next(), let versionNode = iterator.next(), let valueNode = iterator.next()
        else {
            throw .malformed("a receipt attribute has fewer than three fields")
        }
        let type = try integer(typeNode, what: "attribute type")
        let version = try integer(versionNode, what: "version of attribute \(type)")
        guard valueNode.identifier == .octetString else {
            throw .malformed("the value of attribute \(type) is not an OCTET STRING")
        }
        return ReceiptAttribute(type: type, version: version, value: try octets(valueNode, what: "attribute \(type)"))
    }

    /// The value as a string. Apple uses UTF8String, but IA5String and PrintableString are read too.
    func string() throws(AppReceiptError) -> String {
        let node = try Self.parse(value, what: "attribute \(type)")
        switch node.identifier {
        case .utf8String, .ia5String, .printableString:
            guard case .primitive(let bytes) = node.content else {
                throw .malformed("attribute \(type) holds a constructed string")
            }
            guard let string = String(validating: bytes, as: UTF8.self) else {
                throw .malformed("attribute \(type) is not valid UTF-8")
            }
            return string
        default:
            throw .malformed("attribute \(type) should hold a string, found \(node.identifier)")
        }
    }

    /// The value as an RFC 3339 date; an empty string, which Apple writes for absent dates, is `nil`.
    func date() throws(AppReceiptError) -> Date? {
        let text = try string()
        if text.isEmpty { return nil }
        guard let date = ReceiptDate.parseRFC3339(text) else {
            throw .malformed("attribute \(type) is not an RFC 3339 date: \(text.prefix(40))")
        }
        return date
    }

    /// The value as a date that must be present.
    func requiredDate() throws(AppReceiptError) -> Date {
        guard let date = try date() else { throw .malformed("attribute \(type) holds an empty date") }
        return date
    }

    /// The value as a non-negative INTEGER.
    func integer() throws(AppReceiptError) -> Int64 {
        let node = try Self.parse(value, what: "attribute \(type)")
        guard node.identifier == .integer else {
            throw .malformed("attribute \(type) should hold an INTEGER, found \(node.identifier)")
        }
        let value = try Self.integer(node, what: "attribute \(type)")
        guard value >= 0 else { throw .malformed("attribute \(type) is negative") }
        return value
    }

    private static func parse(_ bytes: [UInt8], what: String) throws(AppReceiptError) -> ASN1Node {
        do {
            return try BER.parse(bytes)
        } catch {
            throw .malformed("\(what) is not valid ASN.1: \(error)")
        }
    }

    private static func integer(_ node: ASN1Node, what: String) throws(AppReceiptError) -> Int64 {
        do {
            return try Int64(berEncoded: node, withIdentifier: .integer)
        } catch {
            throw .malformed("\(what) is not an INTEGER that fits 64 bits")
        }
    }

    /// The content of an OCTET STRING, joining the segments of a constructed BER encoding.
    static func octets(_ node: ASN1Node, what: String) throws(AppReceiptError) -> [UInt8] {
        switch node.content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let segments):
            var joined: [UInt8] = []
            for segment in segments {
                guard segment.identifier == .octetString else {
                    throw .malformed("\(what): a segment of a constructed OCTET STRING is \(segment.identifier)")
                }
                joined += try octets(segment, what: what)
            }
            return joined
        }
    }
}
