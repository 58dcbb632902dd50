import Foundation

/// A store transaction whose proof Shopkeeper has not taken yet, kept on disk until it has.
public struct PendingPurchase: Codable, Hashable, Sendable, Identifiable {
    /// The store transaction.
    public var transaction: DeviceTransaction
    /// Who bought it (sent as `app_user_id`).
    public var appUserID: String
    /// When it was first kept.
    public var since: Date
    /// Sends so far.
    public var attempts: Int
    /// The last failure's code, if any.
    public var lastError: String?
    /// Not sent again by itself before this time (``Shopkeeper/retryPendingPurchases()`` sends anyway).
    public var notBefore: Date

    /// The transaction id.
    public var id: String { transaction.id }
}

/// The app transaction (StoreKit's `AppTransaction`) this install sent, and Shopkeeper's answer: kept in the state
/// file, so it is sent once per install (a reinstall, which deletes the state, sends it again).
public struct SentAppTransaction: Codable, Hashable, Sendable {
    /// Who it was sent for.
    public var appUserID: String
    /// When Shopkeeper answered.
    public var sentAt: Date
    /// Its `appTransactionId`, when Shopkeeper took it.
    public var appTransactionID: String?
    /// Why Shopkeeper refused it for good (`invalid_signature`, `wrong_bundle_id`, ...), when it did.
    public var refusal: String?
}

/// A spend of consumable units, kept with its idempotency key until Shopkeeper answered it.
public struct PendingConsume: Codable, Hashable, Sendable, Identifiable {
    /// The `Idempotency-Key`, made once.
    public var idempotencyKey: String
    /// Whose units.
    public var appUserID: String
    /// The consumable.
    public var productID: String
    /// How many.
    public var quantity: Int

    /// The key.
    public var id: String { idempotencyKey }
}

/// The package's state on the device: who the user is, the device id, and what is waiting for Shopkeeper. Its
/// anonymous id and device id mirror the id store's (``IDStore``), which keeps them when a reinstall deletes this.
struct LocalState: Codable, Hashable, Sendable {
    /// This install's anonymous id (`anon_` and a UUID, unguessable).
    var anonymousID: String
    /// The current app user id (the anonymous id until ``Shopkeeper/logIn(_:)``).
    var appUserID: String
    /// This install's device id.
    var deviceID: String
    /// Every app user id used on this device, to recognise whose a found transaction is by its token.
    var knownUserIDs: [String]
    var pendingPurchases: [PendingPurchase]
    var pendingConsumes: [PendingConsume]
    /// The proof of the last delivered purchase of each catalog product, to ask later whether it still stands
    /// (and whether its downloaded content must go).
    var deliveredProofs: [String: PurchaseProof]
    /// The app transaction sent for this install (once; a restore sends it again), `nil` until Shopkeeper answered.
    var appTransaction: SentAppTransaction?

    /// Who bought a transaction: the user whose account token it carries, else the current user.
    func buyer(of transaction: DeviceTransaction) -> String {
        guard let token = transaction.appAccountToken else { return appUserID }
        return knownUserIDs.first { AppAccountToken.uuid(forAppUserID: $0) == token } ?? appUserID
    }

    /// The pause before sending a kept purchase again after `attempts` failed sends: 5 s doubling, at most 1 h.
    static func backoff(attempts: Int) -> TimeInterval {
        min(5 * pow(2, Double(max(attempts - 1, 0))), 3600)
    }
}
