import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// Publishes app-level facts (facts that name no customer) as events.
protocol AppEventRepository: Sendable {
    /// Writes each event the app has not had under its key, with its webhook delivery; returns how many were new.
    func publish(_ events: [AppEvent], appID: String) async throws -> Int
}

/// ``AppEventRepository`` on PostgreSQL: every event of a request in one transaction.
struct AppEventPostgresRepository: AppEventRepository {
    let client: PostgresClient
    let logger: Logger

    func publish(_ events: [AppEvent], appID: String) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            var published = 0
            for event in events {
                let new = try await EventOutbox.appendAppEvent(
                    Self.type(of: event.kind), payload: Self.payload(of: event), key: event.key, appID: appID,
                    on: connection, logger: logger)
                if new { published += 1 }
            }
            return published
        }
    }

    static func type(of kind: AppEventKind) -> EventType {
        switch kind {
        case .consentRescinded: .consentRescinded
        case .externalPurchaseToken: .externalPurchaseToken
        }
    }

    /// The event's body, in the words of every other event.
    static func payload(of event: AppEvent) -> EventPayload {
        var payload = EventPayload()
        payload.store = event.store.rawValue
        payload.environment = event.environment.rawValue
        payload.appTransactionID = event.appTransactionID
        payload.externalPurchaseID = event.externalPurchaseID
        payload.tokenCreationDate = event.tokenCreationDate?.formatted(.iso8601)
        payload.subtype = event.subtype
        return payload
    }
}
