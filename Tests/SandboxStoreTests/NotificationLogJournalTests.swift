import Foundation
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import SandboxStore

/// The notification log is state like the purchases: a restart on the same state directory finds every notification
/// sent before it (in `/sandbox/notifications` and in Apple's notification history), a delivery cut short by the
/// restart is attempted again, and Get Refund History answers for any transaction id of the customer.
@Suite struct NotificationLogJournalTests {
    /// The first attempt fails and the retry would come only after ten minutes: only a restart can send it again.
    static func environment(_ receiver: String) -> [String: String] {
        NotificationWorld.sandboxEnvironment(receiver: receiver).merging([
            "SHOPKEEPER_SANDBOX_NOTIFICATION_RETRY_MS": "600000"
        ]) { $1 }
    }

    /// The App Store notification history of `com.example.garden` in the sandbox over the last hour.
    func history(_ sandbox: SandboxHarness, key: AppleAPIKeyCreated) async throws -> [String] {
        let now = Date().appleMilliseconds
        let response = try await sandbox.send(
            .post, "/apple/sandbox/inApps/v1/notifications/history",
            json: ["startDate": now - 3_600_000, "endDate": now + 1000], bearer: try AppleBearer.token(key))
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        let page = try sandbox.decode(AppStoreNotificationHistoryResponse.self, response)
        return (page.notificationHistory ?? []).compactMap(\.signedPayload)
    }

    @Test func theLogSurvivesARestartAndAnUnfinishedDeliveryIsAttemptedAgain() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await NotificationWorld.receiving { inbox, receiver in
            await inbox.fail(next: 1, path: "/apple")
            let environment = Self.environment(receiver)
            let before = Before()
            try await SandboxHarness.run(stateDirectory: directory, environment: environment) { sandbox in
                let key = try await sandbox.appleKey()
                let bought = try await sandbox.buyApple()
                _ = try await sandbox.send(.post, "/sandbox/apple/transactions/\(bought.transactionId)/refund")
                let attempted = try await eventually({
                    try sandbox.object(try await sandbox.send(.get, "/sandbox/notifications"))["deliveries"]
                        as? [[String: Any]] ?? []
                }) { $0.count == 2 && $0.allSatisfy { $0["attempts"] as? Int == 1 } }
                #expect(attempted.count == 2)
                #expect(await inbox.requests("/apple").count == 2)
                await before.set(key: key, history: try await history(sandbox, key: key))
            }
            let (key, signed) = (try #require(await before.key), await before.history)
            #expect(signed.count == 2)

            try await SandboxHarness.run(stateDirectory: directory, environment: environment) { sandbox in
                // The history Apple keeps for 180 days is still there, the same notifications, signed the same.
                #expect(try await history(sandbox, key: key) == signed)
                // The one that failed is sent again at start (the other was delivered and is not).
                let received = try await inbox.wait(for: 3, at: "/apple")
                #expect(received.count == 3 && received[2].body == received[0].body)
                let log = try await eventually({
                    try sandbox.object(try await sandbox.send(.get, "/sandbox/notifications"))["deliveries"]
                        as? [[String: Any]] ?? []
                }) { $0.count == 2 && $0.allSatisfy { $0["delivered"] as? Bool == true } }
                #expect(log.map { $0["attempts"] as? Int } == [2, 1], "\(log)")
            }
        }
    }

    /// A state directory reused with other targets (another run, other ports): what was never delivered to the old
    /// target stays in the log and is not sent again at start, so the new target's notifications do not wait behind it.
    @Test func aRestartWithAnotherTargetDoesNotResumeTheOldTargetsDeliveries() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await NotificationWorld.receiving { inbox, receiver in
            await inbox.fail(next: 1, path: "/apple")
            try await SandboxHarness.run(stateDirectory: directory, environment: Self.environment(receiver)) {
                sandbox in
                _ = try await sandbox.buyApple()
                let attempted = try await eventually({
                    try sandbox.object(try await sandbox.send(.get, "/sandbox/notifications"))["deliveries"]
                        as? [[String: Any]] ?? []
                }) { $0.count == 1 && $0[0]["attempts"] as? Int == 1 }
                #expect(attempted.first?["delivered"] as? Bool == false, "\(attempted)")
            }
            let moved = Self.environment(receiver + "/moved")
            try await SandboxHarness.run(stateDirectory: directory, environment: moved) { sandbox in
                _ = try await sandbox.buyApple()
                // Deliveries go out one after the other, resumed ones first: the new one arriving means the old one
                // would have been attempted already.
                _ = try await inbox.wait(for: 1, at: "/moved/apple")
                #expect(await inbox.requests("/apple").count == 1)
                // (The receiver knows no `/moved/apple` and answers 404: an attempt all the same.)
                let log = try await eventually({
                    try sandbox.object(try await sandbox.send(.get, "/sandbox/notifications"))["deliveries"]
                        as? [[String: Any]] ?? []
                }) { $0.count == 2 && $0[1]["attempts"] as? Int == 1 }
                #expect(log.map { $0["attempts"] as? Int } == [1, 1])
                #expect(log.first?["delivered"] as? Bool == false)
            }
        }
    }

    @Test func refundHistoryAnswersTheSameForAnyTransactionIdOfTheCustomer() async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.appleKey()
            let token = UUID().uuidString.lowercased()
            let gems = try await sandbox.buyApple(["app_account_token": token])
            let garden = try await sandbox.buyApple([
                "app_account_token": token, "product_id": "garden", "type": "Non-Consumable",
            ])
            // Without a token, a purchase is its own customer (the sandbox has no Apple IDs).
            let loner = try await sandbox.buyApple(["product_id": "garden", "type": "Non-Consumable"])
            for id in [gems.transactionId, loner.transactionId] {
                _ = try await sandbox.send(.post, "/sandbox/apple/transactions/\(id)/refund")
            }
            func refunded(_ id: String) async throws -> [String] {
                let response = try await sandbox.send(
                    .get, "/apple/sandbox/inApps/v2/refund/lookup/\(id)", bearer: try AppleBearer.token(key))
                #expect(response.status == .ok, "\(id): \(String(buffer: response.body))")
                let page = try sandbox.decode(AppStoreRefundHistoryResponse.self, response)
                return try (page.signedTransactions ?? []).map {
                    try jwsPayloadObject($0)["transactionId"] as? String ?? ""
                }
            }
            let appTransactionId = try #require(
                try jwsPayloadObject(gems.signedTransaction)["appTransactionId"] as? String)
            // transactionId, originalTransactionId of another purchase, or the customer's appTransactionId.
            for id in [gems.transactionId, garden.transactionId, appTransactionId] {
                #expect(try await refunded(id) == [gems.transactionId], "asked with \(id)")
            }
            #expect(try await refunded(loner.transactionId) == [loner.transactionId])
            let lonerApp = try #require(try jwsPayloadObject(loner.signedTransaction)["appTransactionId"] as? String)
            #expect(try await refunded(lonerApp) == [loner.transactionId])
        }
    }
}

/// What the store answered before its restart.
private actor Before {
    private(set) var key: AppleAPIKeyCreated?
    private(set) var history: [String] = []

    func set(key: AppleAPIKeyCreated, history: [String]) {
        self.key = key
        self.history = history
    }
}
