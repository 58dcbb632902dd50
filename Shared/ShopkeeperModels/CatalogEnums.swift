/// What kind of thing a product is, which decides how a purchase of it is granted.
package enum ProductType: String, Codable, CaseIterable, Sendable {
    /// Used up and bought again (doses of fertilizer); counted on the server.
    case consumable
    /// Bought once, owned for good (an extra garden).
    case nonConsumable = "non_consumable"
    /// Renewed by the store until cancelled.
    case autoRenewable = "auto_renewable"
    /// A fixed period (one year of service); purchases stack end to end.
    case nonRenewing = "non_renewing"
}

extension ProductType: SQLLiteralEnum {}

/// Where a product stands in the store's review; only `approved` products reach distribution builds.
package enum ReviewState: String, Codable, CaseIterable, Sendable {
    case pendingDeveloperApproval = "pending_developer_approval"
    case waitingForReview = "waiting_for_review"
    case inReview = "in_review"
    case approved
    case rejected
    case removed
}

/// A store an app is sold through.
package enum StorePlatform: String, Codable, CaseIterable, Sendable, CodingKeyRepresentable {
    case appStore = "app_store"
    case playStore = "play_store"
    /// Stripe (web checkout): the store product id is a Stripe price id (`price_...`), one-time or recurring.
    case stripe
}

/// The kind of app build asking for the catalog.
package enum BuildKind: String, Codable, CaseIterable, Sendable {
    /// A developer's or tester's build: also sees products under review.
    case development
    /// A build from the store: sees only approved products cleared for sale.
    case distribution
}

/// What an app older than a product's minimum version sees of it.
package enum BelowMinVersionBehavior: String, Codable, CaseIterable, Sendable {
    /// The product is left out.
    case hide
    /// The product is listed as `requires_update` and cannot be bought.
    case requiresUpdate = "requires_update"
}

/// How the calling build may obtain a product listed in the catalog.
package enum Availability: String, Codable, CaseIterable, Sendable {
    /// Bought through the store with its store product id.
    case purchasable
    /// Claimed from Shopkeeper without a store.
    case free
    /// Already part of the caller's app variant: shown as owned, never sent to a store.
    case included
    /// The app is older than the product's minimum version: shown, but the app must update to buy it.
    case requiresUpdate = "requires_update"
}
