/// A value that JSON holds as its text: encoded as its `description`, decoded with `init?(_:)`, and a text that is
/// none of its values is a decoding error naming what was expected.
package protocol TextCodable: Codable, LosslessStringConvertible {
    /// What a valid text is, for the error a text that is none gets (`'P1X' is not <expectedText>`).
    static var expectedText: String { get }
}

extension TextCodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not \(Self.expectedText)")
        }
        self = value
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
