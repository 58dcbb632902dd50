import Foundation

/// The kinds of app-level fact a store tells that name no customer, published as events.
package enum AppEventKind: String, Codable, Sendable, CaseIterable {
    /// Apple: the customer withdrew their consent (Declared Age Range, `RESCIND_CONSENT`).
    case consentRescinded = "consent_rescinded"
    /// Apple: an external purchase token was created or is unreported (`EXTERNAL_PURCHASE_TOKEN`).
    case externalPurchaseToken = "external_purchase_token"
}

/// One app-level fact to publish as an event. `key` makes it idempotent: a fact published again under the same key
/// (a store notification delivered twice, an apply retried) is one event.
package struct AppEvent: Codable, Sendable, Equatable {
    package var kind: AppEventKind
    /// Unique per app and fact (for notifications: the store and the notification's id).
    package var key: String
    package var store: StorePlatform
    package var environment: StoreEnvironment
    /// The app transaction the fact is about (`consent_rescinded`).
    package var appTransactionID: String?
    /// Apple's external purchase id (`external_purchase_token`).
    package var externalPurchaseID: String?
    /// When Apple created the external purchase token.
    package var tokenCreationDate: Date?
    /// The store's subtype of the fact (`UNREPORTED`, `ACTIVE_TOKEN_REMINDER`, `CREATED`), when it has one.
    package var subtype: String?

    package init(
        kind: AppEventKind, key: String, store: StorePlatform, environment: StoreEnvironment,
        appTransactionID: String? = nil, externalPurchaseID: String? = nil, tokenCreationDate: Date? = nil,
        subtype: String? = nil
    ) {
        self.kind = kind
        self.key = key
        self.store = store
        self.environment = environment
        self.appTransactionID = appTransactionID
        self.externalPurchaseID = externalPurchaseID
        self.tokenCreationDate = tokenCreationDate
        self.subtype = subtype
    }

    package enum CodingKeys: String, CodingKey {
        case kind, key, store, environment, subtype
        case appTransactionID = "app_transaction_id"
        case externalPurchaseID = "external_purchase_id"
        case tokenCreationDate = "token_creation_date"
    }
}

/// `POST /internal/v1/app-events` (verifier to entitlements): app-level facts to publish for the signed caller's app.
package struct AppEventsRequest: Codable, Sendable, Equatable {
    package var events: [AppEvent]

    package init(events: [AppEvent]) {
        self.events = events
    }
}

/// The answer of `POST /internal/v1/app-events`.
package struct AppEventsResponse: Codable, Sendable, Equatable {
    /// How many of the request's events were new (the others had been published before under their key).
    package var published: Int

    package init(published: Int) {
        self.published = published
    }
}
