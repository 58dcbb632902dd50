import HTTPTypes
import ShopkeeperHTTP

/// Entitlements failures with their HTTP rendering. Every case is a verdict on the request: retrying it unchanged
/// gives the same answer.
enum EntitlementsError: ProblemError, Equatable {
    /// The purchase belongs to another customer and the app's transfer policy keeps it there.
    case alreadyOwnedByOtherCustomer(transactionID: String, policy: TransferPolicy)
    /// A consumable purchase presented by a customer other than the one it credited: its units stay with the first
    /// presenter whatever the transfer policy.
    case consumableOwnedByOtherCustomer(transactionID: String)
    /// A purchase request (not a restore) would move a purchase back to a customer it was transferred away from.
    case transferredAway(transactionID: String)
    /// A public key asked to fold into another customer an id whose customer owns something.
    case mergeNeedsSecretKey(alias: String)
    /// A public key asked to link an id to a customer it does not name by an anonymous id (``AppUserID/isAnonymous``).
    case linkNeedsSecretKey(appUserID: String)
    /// The purchase has been presented by as many distinct devices as the app allows.
    case deviceLimitReached(transactionID: String, limit: Int)
    /// The transaction's `appAccountToken` names another customer.
    case appAccountTokenMismatch(transactionID: String)
    /// The transaction's obfuscated account id names another customer.
    case obfuscatedAccountIDMismatch(transactionID: String)
    /// The app refuses sandbox purchases.
    case sandboxNotAccepted(transactionID: String)
    /// Consuming more than the balance holds.
    case insufficientBalance(productID: String, balance: Int64, requested: Int64)
    /// The product is not a consumable of this app's catalog.
    case notAConsumable(productID: String)
    /// The idempotency key was used before with a different request.
    case idempotencyKeyReused
    /// No customer has this id.
    case customerNotFound(String)
    /// No suspended id of the app is this one.
    case suspendedAliasNotFound(String)
    /// No promotional grant with this id for this customer.
    case grantNotFound(String)
    /// No event with this id for this app.
    case eventNotFound(String)
    /// No purchase with this store transaction for this app.
    case purchaseNotFound(String)
    /// Linking two customers that both own something, and the transfer policy keeps purchases where they are.
    case aliasConflict(alias: String, policy: TransferPolicy)
    /// A request that must be idempotent came without an `Idempotency-Key` header.
    case idempotencyKeyRequired
    /// The app's catalog has no product with this id.
    case productNotFound(String)
    /// No redemption code of this app is this one (or the text cannot be a code).
    case redemptionCodeNotFound
    /// The redemption code was redeemed already, by another customer.
    case redemptionCodeUsed
    /// The redemption code is past its expiry.
    case redemptionCodeExpired
    /// The redemption code's id has no web purchase to move (yet): the code stays valid.
    case nothingToRedeem
    /// The app keeps exchange rates against another base; a load of a new base must replace them.
    case exchangeRateBaseMismatch(stored: String, given: String)
    /// A figure of a currency cannot be converted: no rate on or before its day.
    case exchangeRateMissing(currency: String, reportingCurrency: String, day: String)

    var status: HTTPResponse.Status {
        switch self {
        case .alreadyOwnedByOtherCustomer, .consumableOwnedByOtherCustomer, .transferredAway, .insufficientBalance,
            .aliasConflict, .redemptionCodeUsed, .nothingToRedeem, .exchangeRateBaseMismatch:
            .conflict
        case .redemptionCodeExpired: .gone
        case .mergeNeedsSecretKey, .linkNeedsSecretKey: .forbidden
        case .idempotencyKeyRequired: .badRequest
        case .deviceLimitReached, .appAccountTokenMismatch, .obfuscatedAccountIDMismatch, .sandboxNotAccepted:
            .forbidden
        case .notAConsumable, .idempotencyKeyReused, .exchangeRateMissing: .unprocessableContent
        case .customerNotFound, .suspendedAliasNotFound, .grantNotFound, .eventNotFound, .purchaseNotFound,
            .productNotFound, .redemptionCodeNotFound:
            .notFound
        }
    }

    var code: String {
        switch self {
        case .alreadyOwnedByOtherCustomer, .consumableOwnedByOtherCustomer, .transferredAway, .aliasConflict:
            "already_owned_by_other_customer"
        case .mergeNeedsSecretKey: "merge_needs_secret_key"
        case .linkNeedsSecretKey: "secret_key_required"
        case .deviceLimitReached: "device_limit_reached"
        case .appAccountTokenMismatch: "app_account_token_mismatch"
        case .obfuscatedAccountIDMismatch: "obfuscated_account_id_mismatch"
        case .sandboxNotAccepted: "sandbox_not_accepted"
        case .insufficientBalance: "insufficient_balance"
        case .notAConsumable: "not_a_consumable"
        case .idempotencyKeyReused: "idempotency_key_reused"
        case .customerNotFound: "customer_not_found"
        case .suspendedAliasNotFound: "suspended_alias_not_found"
        case .grantNotFound: "grant_not_found"
        case .eventNotFound: "event_not_found"
        case .purchaseNotFound: "purchase_not_found"
        case .idempotencyKeyRequired: "idempotency_key_required"
        case .productNotFound: "product_not_found"
        case .redemptionCodeNotFound: "redemption_code_not_found"
        case .redemptionCodeUsed: "redemption_code_used"
        case .redemptionCodeExpired: "redemption_code_expired"
        case .nothingToRedeem: "nothing_to_redeem"
        case .exchangeRateBaseMismatch: "exchange_rate_base_mismatch"
        case .exchangeRateMissing: "exchange_rate_missing"
        }
    }

    var detail: String {
        switch self {
        case .alreadyOwnedByOtherCustomer(let id, let policy):
            "Transaction \(id) belongs to another customer, and this app's transfer policy (\(policy.rawValue)) "
                + "keeps it there."
        case .consumableOwnedByOtherCustomer(let id):
            "Transaction \(id) is a consumable purchase whose units were credited to another customer; consumable "
                + "units stay with the customer who first presented the purchase, whatever the transfer policy."
        case .transferredAway(let id):
            "Transaction \(id) was transferred from this customer to another; only a restore moves it back."
        case .mergeNeedsSecretKey(let alias):
            "\(alias) names a customer who owns purchases, units, grants or a trial; with a public key an id can be "
                + "linked only when its customer owns nothing. Link them from your server with a secret key."
        case .linkNeedsSecretKey(let id):
            "With a public key only an anonymous id (anon_ followed by a UUID) may link another id, as a log-in "
                + "does; \(id) is not one. Link ids of identified customers from your server with a secret key."
        case .deviceLimitReached(let id, let limit):
            "Transaction \(id) has been presented by \(limit) devices, the most this app allows; nothing was granted."
        case .appAccountTokenMismatch(let id):
            "Transaction \(id) was bought with an appAccountToken of another customer."
        case .obfuscatedAccountIDMismatch(let id):
            "Transaction \(id) was bought with the obfuscated account id of another customer."
        case .sandboxNotAccepted(let id):
            "Transaction \(id) is a sandbox purchase, and this app does not accept sandbox purchases."
        case .insufficientBalance(let product, let balance, let requested):
            "Cannot consume \(requested) of \(product): the balance is \(balance)."
        case .notAConsumable(let product): "\(product) is not a consumable product of this app's catalog."
        case .idempotencyKeyReused:
            "This Idempotency-Key was used before with a different request; use a new key for a new request."
        case .customerNotFound(let id): "No customer has the id \(id)."
        case .suspendedAliasNotFound(let id): "\(id) is not a suspended id of this app."
        case .grantNotFound(let id): "No promotional grant \(id) for this customer."
        case .eventNotFound(let id): "No event \(id) for this app."
        case .purchaseNotFound(let id): "No purchase with the original transaction \(id) for this app."
        case .aliasConflict(let alias, let policy):
            "\(alias) names another customer; both customers own purchases, units or grants, and this app's "
                + "transfer policy (\(policy.rawValue)) keeps them with their owner. Nothing was linked."
        case .idempotencyKeyRequired:
            "Send an Idempotency-Key header (1 to 255 printable ASCII characters), a new one for each new request."
        case .productNotFound(let product): "This app's catalog has no product \(product)."
        case .redemptionCodeNotFound: "This app has no such redemption code."
        case .redemptionCodeUsed: "This redemption code was redeemed already, by another customer; nothing moved."
        case .redemptionCodeExpired: "This redemption code has expired; ask for a new one where the purchase was made."
        case .nothingToRedeem:
            "The id this code was issued for has no web purchase to move yet (the payment may still be on its way); "
                + "the code stays valid: try again shortly."
        case .exchangeRateBaseMismatch(let stored, let given):
            "This app's exchange rates are against \(stored), these against \(given); nothing was loaded. Load them "
                + "with ?replace=true to replace every rate of the app."
        case .exchangeRateMissing(let currency, let reporting, let day):
            "No exchange rate converts \(currency) to \(reporting) on or before \(day): load the rates of that day "
                + "(PUT /v1/admin/exchange-rates), or ask without currency for the figures in their own currencies."
        }
    }
}
