import Foundation
import Testing

@testable import ShopkeeperKit

/// How the package opens its ids: the id store (the Keychain on Apple platforms) is the truth, so a reinstall keeps
/// them, and ids an older kit kept only in `state.json` move there once.
@Suite struct InstallIDsTests {
    static let old = InstallIDs(anonymousID: "anon_old", deviceID: "device-old")
    static let kept = InstallIDs(anonymousID: "anon_kept", deviceID: "device-kept")
    static let new = InstallIDs(anonymousID: "anon_new", deviceID: "device-new")

    @Test func aReinstallKeepsTheIdsOfTheIdStore() throws {
        let opening = try LocalState.opening(saved: nil, kept: .kept(Self.kept), new: Self.new)
        #expect(opening.state == .fresh(ids: Self.kept))
        #expect(opening.state.appUserID == "anon_kept")
        #expect(opening.saveState)
        #expect(opening.keep == nil)
    }

    @Test func theStateFilesIdsMoveToAnEmptyIdStore() throws {
        let saved = LocalState.fresh(ids: Self.old)
        let opening = try LocalState.opening(saved: saved, kept: .empty, new: Self.new)
        #expect(opening.state == saved)
        #expect(!opening.saveState)
        #expect(opening.keep == Self.old)
    }

    @Test func aFirstStartMakesIdsForBoth() throws {
        let opening = try LocalState.opening(saved: nil, kept: .empty, new: Self.new)
        #expect(opening.state == .fresh(ids: Self.new))
        #expect(opening.saveState)
        #expect(opening.keep == Self.new)
    }

    @Test func agreeingIdsChangeNothing() throws {
        let saved = LocalState.fresh(ids: Self.kept)
        let opening = try LocalState.opening(saved: saved, kept: .kept(Self.kept), new: Self.new)
        #expect(opening == Opening(state: saved, saveState: false, keep: nil))
    }

    @Test func theIdStoreWinsOverAStateFileThatDiffers() throws {
        var anonymous = LocalState.fresh(ids: Self.old)
        anonymous.pendingConsumes = [
            PendingConsume(idempotencyKey: "k", appUserID: "anon_old", productID: "fertilizer_10", quantity: 1)
        ]
        let opened = try LocalState.opening(saved: anonymous, kept: .kept(Self.kept), new: Self.new)
        #expect(opened.saveState)
        #expect(opened.keep == nil)
        #expect(opened.state.ids == Self.kept)
        #expect(opened.state.appUserID == "anon_kept", "the anonymous user is the kept anonymous id")
        #expect(opened.state.knownUserIDs == ["anon_old", "anon_kept"], "the old id's purchases keep their buyer")
        #expect(opened.state.pendingConsumes == anonymous.pendingConsumes)

        var loggedIn = anonymous
        loggedIn.appUserID = "carol"
        let stays = try LocalState.opening(saved: loggedIn, kept: .kept(Self.kept), new: Self.new)
        #expect(stays.state.appUserID == "carol", "whoever logged in stays logged in")
        #expect(stays.state.anonymousID == "anon_kept")
    }

    @Test func anUnavailableIdStoreUsesTheStateFileAndNeverMakesUpAPerson() throws {
        let saved = LocalState.fresh(ids: Self.old)
        let locked = KeptIDs.unavailable(.storage("locked"))
        #expect(
            try LocalState.opening(saved: saved, kept: locked, new: Self.new)
                == Opening(state: saved, saveState: false, keep: nil))
        #expect(throws: ShopkeeperError.storage("locked")) {
            try LocalState.opening(saved: nil, kept: locked, new: Self.new)
        }
    }

    /// The state file as the kit wrote it before the id store (commit 0cee231): ids in it, nowhere else.
    static let oldStateFile = """
        {"anonymousID":"anon_4b1d7c3e-0d7e-4f51-9a61-0c7f8f0f2a11","appUserID":"anon_4b1d7c3e-0d7e-4f51-9a61-0c7f8f0f2a11",\
        "deliveredProofs":{},"deviceID":"5d0c6e0a-8a7e-4a43-b3a8-6f7d2a0c9e12",\
        "knownUserIDs":["anon_4b1d7c3e-0d7e-4f51-9a61-0c7f8f0f2a11"],"pendingConsumes":[{"appUserID":\
        "anon_4b1d7c3e-0d7e-4f51-9a61-0c7f8f0f2a11","idempotencyKey":"9f1c","productID":"fertilizer_10","quantity":2}],\
        "pendingPurchases":[]}
        """

    @Test func anOlderInstallsIdsMoveToTheIdStoreOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = folder.appendingPathComponent("shopkeeper")
        let keychain = FileIDStore(directory: folder.appendingPathComponent("keychain"))
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        try Data(Self.oldStateFile.utf8).write(to: storage.appendingPathComponent("state.json"))
        func open() throws -> Shopkeeper {
            let configuration = ShopkeeperConfiguration(
                baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "pk_test", appVersion: "1.0",
                storageDirectory: storage, idStore: keychain)
            let store = SandboxDeviceStore(
                sandboxURL: URL(string: "http://127.0.0.1:9")!, bundleID: "b",
                deviceDirectory: folder.appendingPathComponent("store"))
            return try Shopkeeper(configuration: configuration, store: store)
        }
        let expected = InstallIDs(
            anonymousID: "anon_4b1d7c3e-0d7e-4f51-9a61-0c7f8f0f2a11", deviceID: "5d0c6e0a-8a7e-4a43-b3a8-6f7d2a0c9e12")
        #expect(try keychain.read() == nil)

        // The upgraded app opens: the same ids, now in the id store; what waited stays waiting.
        let upgraded = try open()
        #expect(await upgraded.anonymousID == expected.anonymousID)
        #expect(await upgraded.appUserID == expected.anonymousID)
        #expect(await upgraded.deviceID == expected.deviceID)
        #expect(await upgraded.pendingConsumes.map(\.idempotencyKey) == ["9f1c"])
        #expect(try keychain.read() == expected)

        // Once: from then on the id store is the truth, whatever the state file says.
        var edited = try #require(try JSONFile<LocalState>(url: storage.appendingPathComponent("state.json")).read())
        edited.anonymousID = "anon_other"
        edited.appUserID = "anon_other"
        try JSONFile<LocalState>(url: storage.appendingPathComponent("state.json")).write(edited)
        #expect(await (try open()).anonymousID == expected.anonymousID)
        #expect(try keychain.read() == expected)

        // Deleted and installed again: the state file is gone, the ids are not.
        try FileManager.default.removeItem(at: storage)
        let reinstalled = try open()
        #expect(await reinstalled.anonymousID == expected.anonymousID)
        #expect(await reinstalled.deviceID == expected.deviceID)

        // Logging out makes a new anonymous id, and the id store keeps it first (the old one may be a user's now).
        try await reinstalled.logOut()
        let next = await reinstalled.anonymousID
        #expect(next != expected.anonymousID && next.hasPrefix("anon_"))
        #expect(try keychain.read() == InstallIDs(anonymousID: next, deviceID: expected.deviceID))
    }
}
