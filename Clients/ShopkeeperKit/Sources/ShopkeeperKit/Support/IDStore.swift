import Foundation

/// The ids that make this install this install: its anonymous id (the customer until someone logs in) and its
/// device id (free trials, device limits, content). They must outlive the app's files, or a reinstall becomes a new
/// person on a new device: a second free trial, and a paid consumable balance stranded under the old id.
public struct InstallIDs: Codable, Hashable, Sendable {
    /// This install's anonymous id (`anon_` and a UUID).
    public var anonymousID: String
    /// This install's device id.
    public var deviceID: String

    /// Ids.
    public init(anonymousID: String, deviceID: String) {
        self.anonymousID = anonymousID
        self.deviceID = deviceID
    }

    /// New ids: an unguessable anonymous id (the reserved form the server recognises as anonymous) and device id.
    public static func make() -> InstallIDs {
        InstallIDs(
            anonymousID: "anon_" + UUID().uuidString.lowercased(), deviceID: UUID().uuidString.lowercased())
    }
}

/// Where ``Shopkeeper`` keeps ``InstallIDs``, apart from its state file (which a reinstall deletes):
/// ``KeychainIDStore`` on Apple platforms (the Keychain survives deleting the app), ``FileIDStore`` elsewhere.
public protocol IDStore: Sendable {
    /// The kept ids; `nil` when none are kept yet. Throws only when it cannot tell (the store is unavailable).
    func read() throws(ShopkeeperError) -> InstallIDs?
    /// Keeps the ids, replacing any kept before.
    func write(_ ids: InstallIDs) throws(ShopkeeperError)
}

/// ``InstallIDs`` in a JSON file (`ids.json`) of a directory the app chooses: the id store on platforms without a
/// Keychain. Choose a directory that outlives the app's data (not ``ShopkeeperConfiguration/storageDirectory``), or
/// a reinstall gets new ids; tests use it to stand in for the Keychain.
public struct FileIDStore: IDStore {
    /// The directory holding `ids.json`.
    public let directory: URL
    private var file: JSONFile<InstallIDs> { JSONFile(url: directory.appendingPathComponent("ids.json")) }

    /// A store in `directory` (made on first write).
    public init(directory: URL) { self.directory = directory }

    /// The kept ids, if any.
    public func read() throws(ShopkeeperError) -> InstallIDs? { try file.read() }

    /// Keeps the ids (written atomically).
    public func write(_ ids: InstallIDs) throws(ShopkeeperError) { try file.write(ids) }
}
