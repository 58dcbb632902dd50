/// What the sandbox store refuses, whichever surface asked. Each surface renders these its own way (Apple's error
/// payloads, Google's error JSON, problem+json for the controls): see `ErrorMapping.swift`.
enum SandboxStoreError: Error, Equatable {
    /// No App Store transaction with this id (in this environment).
    case transactionNotFound(String)
    /// A renewal names an original transaction that does not exist.
    case originalTransactionNotFound(String)
    /// A renewal of something that is not an auto-renewable subscription, or of another app's.
    case notRenewable(String)
    /// The transaction was already refunded or revoked.
    case alreadyRevoked(String)
    /// No Google Play purchase with this token (for this package and product).
    case purchaseNotFound(String)
    /// The Google Play purchase cannot do this in its current state (pending, cancelled, ...).
    case invalidPurchaseState(String)
    /// The buyer owns an unconsumed purchase of this one-time product (Play Billing's `ITEM_ALREADY_OWNED`).
    case itemAlreadyOwned(String)
    /// A service account for this package cannot be found.
    case serviceAccountNotFound(String)
    /// The subscription cannot do this in its current state (ended, not in service, ...).
    case invalidSubscriptionState(String)
    /// No notification with this id was sent.
    case notificationNotFound(String)
    /// Notifications to this store have nowhere to go: no URL is set.
    case notificationURLNotSet(String)
}
