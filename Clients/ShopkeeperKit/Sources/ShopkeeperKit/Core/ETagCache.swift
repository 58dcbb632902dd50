import Foundation

/// The last `200` body and its `ETag` per URL (catalog, offerings and customer info), so that a request sends
/// `If-None-Match` and a `304` answers from memory.
actor ETagCache {
    private var entries: [String: (etag: String, body: Data)] = [:]
    /// How many answers were `304 Not Modified` and came from here.
    private(set) var notModifiedCount = 0

    func countNotModified() { notModifiedCount += 1 }

    func etag(for key: String) -> String? { entries[key]?.etag }

    func body(for key: String) -> Data? { entries[key]?.body }

    func store(key: String, etag: String, body: Data) { entries[key] = (etag, body) }

    func removeAll() { entries.removeAll() }
}
