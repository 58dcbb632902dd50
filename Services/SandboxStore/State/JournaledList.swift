/// An array that remembers which of its elements changed since the last ``takeChange()``, so the sandbox writes
/// each change to its log (``StateJournal``) instead of rewriting the whole state.
///
/// Elements are appended and replaced in place. `removeFirst(_:)` (a bounded log dropping its oldest) is logged as the
/// count dropped; `removeAll(where:)` (for expired access tokens, a short list) marks the whole list as changed. It
/// encodes as a plain JSON array, so snapshots keep the format of the old `state.json`.
struct JournaledList<Element: Codable & Sendable & Equatable>: RandomAccessCollection, MutableCollection, Sendable {
    private(set) var elements: [Element]
    /// Indexes set or appended since the last change was taken.
    private var changed: Set<Int> = []
    /// The list was changed in a way an index cannot name (a removal): the next change carries it whole.
    private var replaced = false
    /// Elements removed from the front since the last change was taken (indexes in `changed` are after removal).
    private var dropped = 0

    init(_ elements: [Element] = []) {
        self.elements = elements
    }

    var startIndex: Int { elements.startIndex }
    var endIndex: Int { elements.endIndex }

    subscript(position: Int) -> Element {
        get { elements[position] }
        set {
            elements[position] = newValue
            changed.insert(position)
        }
    }

    mutating func append(_ element: Element) {
        changed.insert(elements.count)
        elements.append(element)
    }

    /// Removes the first `count` elements (at most all of them).
    mutating func removeFirst(_ count: Int) {
        let count = Swift.min(Swift.max(0, count), elements.count)
        guard count > 0 else { return }
        elements.removeFirst(count)
        changed = Set(changed.compactMap { $0 >= count ? $0 - count : nil })
        dropped += count
    }

    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        let before = elements.count
        try elements.removeAll(where: shouldBeRemoved)
        if elements.count != before { replaced = true }
    }

    /// What changed since the last call (`nil`: nothing), and forgets it.
    mutating func takeChange() -> ListChange<Element>? {
        defer {
            changed = []
            replaced = false
            dropped = 0
        }
        if replaced { return ListChange(whole: elements) }
        guard !changed.isEmpty || dropped > 0 else { return nil }
        return ListChange(
            set: changed.isEmpty ? nil : changed.sorted().map { ListChange.Entry(index: $0, value: elements[$0]) },
            dropFirst: dropped > 0 ? dropped : nil)
    }

    /// Applies a change read back from the log.
    mutating func apply(_ change: ListChange<Element>) throws(StateJournalError) {
        if let whole = change.whole { elements = whole }
        if let count = change.dropFirst {
            guard count <= elements.count else {
                throw .inconsistent("\(count) dropped from a list of \(elements.count)")
            }
            elements.removeFirst(count)
        }
        for entry in change.set ?? [] {
            if entry.index < elements.count {
                elements[entry.index] = entry.value
            } else if entry.index == elements.count {
                elements.append(entry.value)
            } else {
                throw .inconsistent("an entry at \(entry.index) of a list of \(elements.count)")
            }
        }
    }
}

extension JournaledList: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.elements == rhs.elements }
}

extension JournaledList: Codable {
    init(from decoder: any Decoder) throws {
        self.init(try [Element](from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try elements.encode(to: encoder)
    }
}

/// A change of a ``JournaledList`` as one log line holds it: entries set (or appended, at the end) after the first
/// `dropFirst` were removed, or the whole list.
struct ListChange<Element: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    struct Entry: Codable, Sendable, Equatable {
        var index: Int
        var value: Element
    }

    var set: [Entry]?
    var whole: [Element]?
    /// How many elements were removed from the front, before `set` applies.
    var dropFirst: Int?

    init(set: [Entry]? = nil, whole: [Element]? = nil, dropFirst: Int? = nil) {
        self.set = set
        self.whole = whole
        self.dropFirst = dropFirst
    }
}
