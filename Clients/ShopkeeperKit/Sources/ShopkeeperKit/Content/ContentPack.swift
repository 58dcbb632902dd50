import Foundation

/// A product's content pack as it lies on the device, every file checked against its manifest's SHA-256.
public struct ContentPack: Hashable, Sendable {
    /// The product.
    public var productID: String
    /// The pack's version.
    public var version: String
    /// The folder holding the pack's files (under the package's storage directory).
    public var directory: URL
    /// Each file's path in the pack to where it lies.
    public var files: [String: URL]
    /// Bytes fetched by this call (`0` when everything was already there; less than the pack after a resume).
    public var downloadedBytes: Int64
}

/// What the device holds of each product's pack (`content/index.json`).
struct ContentIndex: Codable, Sendable {
    struct Entry: Codable, Sendable {
        var version: String
        /// Paths whose file was checked complete.
        var verified: [String: String]
    }
    var packs: [String: Entry] = [:]
}
