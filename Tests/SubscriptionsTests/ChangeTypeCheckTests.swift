import Foundation
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Subscriptions

/// Migration `0009_change_type_check`: the outbox takes exactly the events a subscription or trial change emits
/// (``EventType/subscriptionEvents``), so the relay always decodes a change's type into ``EventType``.
@Suite struct ChangeTypeCheckTests {
    static let logger = Logger(label: "change-type-check-test")

    @Test("subscriptions.changes accepts every subscription event and refuses every other event type")
    func constraintMatchesSubscriptionEvents() async throws {
        try await TestDatabase.withMigratedDatabase([SubscriptionsMigrations.runner], logger: Self.logger) { client in
            for type in EventType.allCases {
                let accepted: Bool
                do {
                    try await client.query(
                        """
                        INSERT INTO subscriptions.changes (app_id, type, payload)
                        VALUES ('app-1', \(type), '{}'::jsonb)
                        """, logger: Self.logger)
                    accepted = true
                } catch is PSQLError {
                    accepted = false
                }
                #expect(accepted == EventType.subscriptionEvents.contains(type), "\(type.rawValue)")
            }
            let rows = try await client.query("SELECT type FROM subscriptions.changes", logger: Self.logger)
            var stored: Set<EventType> = []
            for try await type in rows.decode(EventType.self) { stored.insert(type) }
            #expect(stored == EventType.subscriptionEvents)
        }
    }
}
