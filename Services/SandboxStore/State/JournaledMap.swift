/// A dictionary keyed by string that remembers which keys changed since the last ``takeChange()``, the map
/// counterpart of ``JournaledList``. It encodes as a plain JSON object.
struct JournaledMap<Value: Codable & Sendable & Equatable>: Sequence, Sendable {
    private(set) var values: [String: Value]
    private var changed: Set<String> = []

    init(_ values: [String: Value] = [:]) {
        self.values = values
    }

    subscript(key: String) -> Value? {
        get { values[key] }
        set {
            values[key] = newValue
            changed.insert(key)
        }
    }

    var count: Int { values.count }

    func makeIterator() -> Dictionary<String, Value>.Iterator {
        values.makeIterator()
    }

    /// What changed since the last call (`nil`: nothing), and forgets it.
    mutating func takeChange() -> MapChange<Value>? {
        guard !changed.isEmpty else { return nil }
        defer { changed = [] }
        var change = MapChange<Value>()
        for key in changed.sorted() {
            if let value = values[key] {
                change.set[key] = value
            } else {
                change.removed.append(key)
            }
        }
        return change
    }

    /// Applies a change read back from the log.
    mutating func apply(_ change: MapChange<Value>) {
        for (key, value) in change.set { values[key] = value }
        for key in change.removed { values[key] = nil }
    }
}

extension JournaledMap: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.values == rhs.values }
}

extension JournaledMap: Codable {
    init(from decoder: any Decoder) throws {
        self.init(try [String: Value](from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}

/// A change of a ``JournaledMap`` as one log line holds it.
struct MapChange<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    var set: [String: Value] = [:]
    var removed: [String] = []
}
