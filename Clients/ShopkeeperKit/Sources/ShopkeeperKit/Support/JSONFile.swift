import Foundation

/// A small JSON document on disk, written atomically (a temporary file renamed over the old one), so that a crash
/// mid-write leaves the previous version, never half of one.
struct JSONFile<Value: Codable & Sendable>: Sendable {
    let url: URL

    func read() throws(ShopkeeperError) -> Value? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONCoding.decoder().decode(Value.self, from: Data(contentsOf: url))
        } catch {
            throw .storage("\(url.lastPathComponent) is unreadable: \(error)")
        }
    }

    func write(_ value: Value) throws(ShopkeeperError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try JSONCoding.encoder().encode(value).write(to: url, options: .atomic)
        } catch {
            throw .storage("cannot write \(url.lastPathComponent): \(error)")
        }
    }
}
