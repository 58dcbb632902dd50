/// A coding key for reading whatever keys an object has.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws when the object holds a key that `Keys` does not name, so a misspelt field is an error, not a default.
    package func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        if let unknown = container.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [unknown], debugDescription: "unknown field '\(unknown.stringValue)'")
            )
        }
    }
}

extension KeyedDecodingContainer {
    /// The value of an optional field that may be left out but not sent as `null` (the API document types it
    /// without `null`): `nil` when absent, an error for `null` or a value of another type.
    package func decodeUnlessAbsent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        return try decode(T.self, forKey: key)
    }
}
