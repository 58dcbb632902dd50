import Foundation

/// A JSON value as Stripe's API writes it: the sandbox renders every Stripe object (and keeps every event's
/// `data.object`) as one of these, so each field is written under Stripe's own name, where it can be read.
enum StripeValue: Codable, Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    case string(String)
    case int(Int64)
    case bool(Bool)
    case object([String: StripeValue])
    case array([StripeValue])
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int64) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(nilLiteral: ()) { self = .null }
    init(arrayLiteral elements: StripeValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, StripeValue)...) {
        self = .object(Dictionary(elements) { _, last in last })
    }

    /// `.string(text)`, or `null` when `text` is `nil`.
    static func text(_ text: String?) -> StripeValue { text.map(StripeValue.string) ?? .null }
    /// `.int(number)`, or `null` when `number` is `nil`.
    static func number(_ number: Int64?) -> StripeValue { number.map(StripeValue.int) ?? .null }
    /// A string map (`metadata`).
    static func map(_ values: [String: String]) -> StripeValue { .object(values.mapValues(StripeValue.string)) }

    /// Stripe's list object: `{"object": "list", "data": [...], "has_more": ..., "url": ...}`.
    static func list(_ data: [StripeValue], url: String, hasMore: Bool = false) -> StripeValue {
        ["object": "list", "data": .array(data), "has_more": .bool(hasMore), "url": .string(url)]
    }

    /// The member `key` of an object.
    subscript(key: String) -> StripeValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .int(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([StripeValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: StripeValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .object(let members): try container.encode(members)
        case .array(let items): try container.encode(items)
        case .null: try container.encodeNil()
        }
    }

    /// The JSON text, keys sorted, slashes unescaped.
    func data() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
