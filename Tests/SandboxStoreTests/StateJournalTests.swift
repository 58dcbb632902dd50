import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The sandbox's state on disk: a snapshot and a log of changes, each change appended, never the whole state
/// rewritten; old whole-file `state.json` files are read and migrated.
@Suite struct StateJournalTests {
    static func directory() throws -> StateDirectory {
        let url = SandboxHarness.temporaryDirectory()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return StateDirectory(url: url)
    }

    static func lines(_ url: URL) throws -> [Substring] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
    }

    static func record(_ id: Int64) -> AppleTransactionRecord {
        AppleTransactionRecord(
            transactionId: String(id), originalTransactionId: String(id), bundleId: "com.example.garden",
            productId: "fertilizer", purchaseDate: 1_700_000_000_000, originalPurchaseDate: 1_700_000_000_000,
            quantity: 1, type: .consumable, environment: .sandbox, storefront: "USA", storefrontId: "143441",
            transactionReason: "PURCHASE", currency: "USD", price: 990, orderId: "MK5TTTVWJH")
    }

    @Test func eachChangeIsOneAppendedLineAndTheSnapshotIsLeftAlone() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        try await SandboxHarness.run(stateDirectory: directory.url) { sandbox in
            let snapshot = try Data(contentsOf: directory.stateURL)
            for _ in 0..<20 { try await sandbox.buyApple() }
            #expect(try Data(contentsOf: directory.stateURL) == snapshot)
            let log = try Self.lines(directory.logURL(generation: 1))
            #expect(log.count == 20)
            // A line holds what changed (the new transaction), not the state.
            #expect(log.allSatisfy { $0.utf8.count < 4096 })
        }
        // The next start replays the log, compacts it into the snapshot and starts a new, empty log.
        try await SandboxHarness.run(stateDirectory: directory.url) { sandbox in
            let snapshot = try JSONDecoder().decode(
                SandboxSnapshot.self, from: Data(contentsOf: directory.stateURL))
            #expect(snapshot.appleTransactions.count == 20 && snapshot.logGeneration == 2)
            #expect(!FileManager.default.fileExists(atPath: directory.logURL(generation: 1).path))
            #expect(try Self.lines(directory.logURL(generation: 2)).isEmpty)
            _ = try await sandbox.buyApple()
        }
    }

    @Test func aStateFileOfTheOldFormatIsReadAndMigrated() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        // Format 1: the whole state in state.json, no generation, no log, optional fields absent.
        let record = Self.record(2_000_000_000_000_042)
        let old: [String: Any] = [
            "version": 1, "nextTransactionNumber": 2_000_000_000_000_100,
            "nextWebOrderLineItemNumber": 2_000_000_000_000_100,
            "appleTransactions": [try JSONSerialization.jsonObject(with: JSONEncoder().encode(record))],
            "appleKeys": [], "googleAccounts": [], "googleAccessTokens": [], "googlePurchases": [], "googleVoided": [],
            "appleSharedSecrets": ["com.example.garden": "0123456789abcdef0123456789abcdef"],
        ]
        try JSONSerialization.data(withJSONObject: old).write(to: directory.stateURL)

        let journal = StateJournal(directory: directory, fsyncEachChange: false)
        var state = try journal.load()
        #expect(state.appleTransactions.count == 1 && state.appleTransactions[0] == record)
        #expect(state.appleSharedSecrets["com.example.garden"] == "0123456789abcdef0123456789abcdef")
        #expect(state.nextTransactionNumber == 2_000_000_000_000_100)
        let migrated = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.stateURL)) as? [String: Any]
        #expect(migrated?["version"] as? Int == 2 && migrated?["logGeneration"] as? Int == 1)
        state.appleTransactions.append(Self.record(2_000_000_000_000_100))
        try journal.record(&state)
        #expect(try Self.lines(directory.logURL(generation: 1)).count == 1)

        var reloaded = try StateJournal(directory: directory, fsyncEachChange: false).load()
        #expect(reloaded.logGeneration == state.logGeneration + 1)
        reloaded.logGeneration = state.logGeneration
        #expect(reloaded == state)
    }

    @Test func aLastLineCutShortIsDroppedAndAnyOtherBadLineStopsTheStart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        let journal = StateJournal(directory: directory, fsyncEachChange: true)
        var state = try journal.load()
        for id in Int64(1)...3 {
            state.appleTransactions.append(Self.record(id))
            try journal.record(&state)
        }
        let log = directory.logURL(generation: 1)
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"nextTransactionNumber\":5,\"appleTransa".utf8))
        try handle.close()
        let replayed = try StateJournal(directory: directory, fsyncEachChange: false).load()
        #expect(replayed.appleTransactions.map(\.transactionId) == ["1", "2", "3"])

        // A torn line inside the log is damage, not a crash: the start stops rather than lose what follows.
        let bad = directory.logURL(generation: 2)
        try Data("{\"broken\n{\"nextTransactionNumber\":1,\"nextWebOrderLineItemNumber\":1}\n".utf8).write(to: bad)
        #expect(throws: StateDirectoryError.self) {
            _ = try StateJournal(directory: directory, fsyncEachChange: false).load()
        }
    }

    @Test func theLogIsCompactedWhileRunningOnceItOutgrowsTheSnapshot() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        let journal = StateJournal(directory: directory, fsyncEachChange: false, compactionFloor: 4096)
        var state = try journal.load()
        for id in Int64(1)...200 {
            state.appleTransactions.append(Self.record(id))
            state.appleSchedules[String(id)] = AppleRenewalSchedule(periodMilliseconds: 60_000)
            try journal.record(&state)
        }
        state.appleTransactions[3].revocationDate = 1
        state.googleAccessTokens.append(GoogleAccessTokenRecord(token: "a", clientEmail: "x", expiresAt: 1))
        state.googleAccessTokens.append(GoogleAccessTokenRecord(token: "b", clientEmail: "x", expiresAt: 9))
        try journal.record(&state)
        state.googleAccessTokens.removeAll { $0.expiresAt < 5 }
        state.appleSchedules["7"] = nil
        try journal.record(&state)
        #expect(journal.currentGeneration > 2)
        let logBytes = try Data(contentsOf: directory.logURL(generation: journal.currentGeneration)).count
        let snapshotBytes = try Data(contentsOf: directory.stateURL).count
        #expect(logBytes <= max(4096, snapshotBytes) + 4096)
        var reloaded = try StateJournal(directory: directory, fsyncEachChange: false).load()
        reloaded.logGeneration = state.logGeneration
        #expect(reloaded == state)
        #expect(reloaded.appleTransactions[3].revocationDate == 1)
        #expect(reloaded.googleAccessTokens.map(\.token) == ["b"] && reloaded.appleSchedules["7"] == nil)
    }
}
