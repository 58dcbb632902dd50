import Foundation

/// The last `200` body and its `ETag` per URL (catalog and customer info), so that a request sends
/// `If-None-Match` and a `304` answers from memory.
actor ETagCache {
    private var entries: [String: (etag: String, body: Data)] = [:]

    func etag(for key: String) -> String? { entries[key]?.etag }

    func body(for key: String) -> Data? { entries[key]?.body }

    func store(key: String, etag: String, body: Data) { entries[key] = (etag, body) }

    func removeAll() { entries.removeAll() }
}
