import Logging
import PostgresNIO
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// The inbox's hand-back (``NotificationInbox/release(_:)``), which the notification worker's ``LeasedPoller`` calls
/// at shutdown for claimed notifications it did not process: due again at once, for another replica.
@Suite struct NotificationInboxHandBackTests {
    static let logger = Logger(label: "inbox-test")

    @Test func aReleasedNotificationIsDueAgainAtOnceWithItsAttemptNotCounted() async throws {
        try await TestDatabase.withMigratedDatabase([VerifierMigrations.runner], logger: Self.logger) { client in
            let inbox = NotificationPostgresInbox(client: client, logger: Self.logger)
            let notification = ReceivedNotification(
                store: "app_store", id: "handed-back", appID: "app_inbox", type: "TEST", subtype: nil,
                environment: "Sandbox", signedAt: nil, payload: "{}")
            #expect(try await inbox.record(notification))
            let claimed = try await inbox.claim(limit: 10, lease: .seconds(3600))
            #expect(claimed.map(\.id) == ["handed-back"])
            #expect(try await inbox.claim(limit: 10, lease: .seconds(3600)).isEmpty)
            try await inbox.release(claimed)
            #expect(try await inbox.claim(limit: 10, lease: .seconds(3600)).map(\.id) == ["handed-back"])
            let rows = try await client.query(
                "SELECT attempts FROM verifier.notifications WHERE notification_id = 'handed-back'",
                logger: Self.logger)
            for try await attempts in rows.decode(Int.self) { #expect(attempts == 1) }
        }
    }
}
