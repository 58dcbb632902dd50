import Foundation
import Testing

/// The sandbox store's state survives a crash: every purchase it answered before being killed (SIGKILL, no shutdown)
/// is there after a restart, because each change is written to its log before the answer goes out.
@Suite struct SandboxStateCrashTests {
    @Test func everyAnsweredPurchaseSurvivesAKillDuringConcurrentPurchases() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let sandbox = try ServiceProcess(
            "shopkeeper-sandbox-store",
            environment: ["SHOPKEEPER_SANDBOX_STATE_DIR": state.path, "SHOPKEEPER_SANDBOX_AUTO_RENEW": "false"])
        try await sandbox.waitUntilReady()
        let body = try JSONSerialization.data(withJSONObject: [
            "bundle_id": "com.example.garden", "product_id": "fertilizer", "type": "Consumable",
        ])
        // 8 buyers keep buying; the store is killed once 200 purchases were answered, while others are in flight.
        let answered = try await withThrowingTaskGroup(of: [String].self) { group in
            let counter = AnsweredCounter()
            for _ in 0..<8 {
                group.addTask {
                    var ids: [String] = []
                    while await counter.count < 200 {
                        guard let (status, data) = try? await sandbox.post("/sandbox/apple/transactions", json: body)
                        else { break }
                        guard status == .created,
                            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                            let id = object["transaction_id"] as? String
                        else { break }
                        ids.append(id)
                        await counter.add()
                    }
                    return ids
                }
            }
            group.addTask {
                while await counter.count < 200 { await Task.yield() }
                try await sandbox.crash()
                return []
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(answered.count >= 200)

        let restarted = try sandbox.restarted()
        try await restarted.waitUntilReady()
        var missing: [String] = []
        for id in answered {
            let (status, _) = try await restarted.get("/sandbox/apple/transactions/\(id)/receipt")
            if status != .ok { missing.append(id) }
        }
        #expect(missing.isEmpty, "purchases answered before the crash but gone after it: \(missing)")
        try await restarted.stop()
    }
}

/// How many purchases were answered, shared by the buyers.
actor AnsweredCounter {
    private(set) var count = 0

    func add() { count += 1 }
}
