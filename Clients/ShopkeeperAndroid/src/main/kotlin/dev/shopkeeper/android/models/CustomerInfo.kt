package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf
import java.time.Instant

/**
 * What a customer owns now (schema `CustomerInfo`): the answer of `GET /v1/customers/{app_user_id}` and the
 * `customer` of purchases, restores, consumes and aliases. Fields the server adds later are ignored.
 */
data class CustomerInfo(
    /** The id the request addressed the customer by. */
    val appUserId: String,
    /** Every id that addresses this customer, oldest first. */
    val aliases: List<String>,
    /** When Shopkeeper first saw the customer (1970 for an id not seen yet). */
    val firstSeen: Instant,
    /** The last change (or read, ten minutes apart). */
    val lastSeen: Instant,
    /** How many of the customer's purchases were refunded or revoked. */
    val refundCount: Int,
    /** Entitlement id to its best grant. */
    val entitlements: Map<String, EntitlementInfo>,
    /** Subscriptions with their state, oldest first. */
    val subscriptions: List<SubscriptionInfo>,
    /** The app's own free trial. */
    val trial: TrialInfo,
    /** Consumables, non-consumables and non-renewing purchases, oldest first. */
    val nonSubscriptionPurchases: List<NonSubscriptionPurchase>,
    /** Catalog product id to its unspent units. */
    val consumableBalances: Map<String, Int>,
    /** Products owned without a store purchase (claimed free, included in the app's paid variant, grandfathered). */
    val productGrants: List<ProductGrant>
) {
    /** The ids of the entitlements in force now. */
    val activeEntitlements: Set<String>
        get() = entitlements.filterValues { it.active }.keys

    fun toJson() = jsonOf(
        "app_user_id" to appUserId, "aliases" to aliases, "first_seen" to firstSeen, "last_seen" to lastSeen,
        "refund_count" to refundCount, "entitlements" to entitlements.mapValues { it.value.toJson() },
        "subscriptions" to subscriptions.map { it.toJson() }, "trial" to trial.toJson(),
        "non_subscription_purchases" to nonSubscriptionPurchases.map { it.toJson() },
        "consumable_balances" to consumableBalances, "product_grants" to productGrants.map { it.toJson() }
    )

    companion object {
        fun from(json: JsonObject) = CustomerInfo(
            appUserId = json.string("app_user_id"), aliases = json.strings("aliases"),
            firstSeen = json.instant("first_seen"), lastSeen = json.instant("last_seen"),
            refundCount = json.int("refund_count"), entitlements = json.objectMap("entitlements", EntitlementInfo.Companion::from),
            subscriptions = json.list("subscriptions", SubscriptionInfo.Companion::from),
            trial = TrialInfo.from(json.obj("trial")),
            nonSubscriptionPurchases = json.list("non_subscription_purchases", NonSubscriptionPurchase.Companion::from),
            consumableBalances = json.intMap("consumable_balances"),
            productGrants = json.list("product_grants", ProductGrant.Companion::from)
        )
    }
}

/** One entitlement's best grant (schema `EntitlementInfo`). */
data class EntitlementInfo(
    /** Whether it is in force now. */
    val active: Boolean,
    /** When it ends or ended; `null` for no end. */
    val expiresAt: Instant?,
    /** The product that grants it; `null` for a promotional grant. */
    val productId: String?,
    /** When it was bought or granted. */
    val purchaseDate: Instant,
    /** The store; `null` for a promotional grant. */
    val store: StorePlatform?,
    /** `production` or `sandbox`; `null` for a promotional grant. */
    val environment: StoreEnvironment?,
    /** `purchase`, `subscription`, `trial` or `promotional`. */
    val source: String
) {
    fun toJson() = jsonOf(
        "active" to active, "expires_at" to expiresAt, "product_id" to productId, "purchase_date" to purchaseDate,
        "store" to store?.rawValue, "environment" to environment?.rawValue, "source" to source
    )

    companion object {
        fun from(json: JsonObject) = EntitlementInfo(
            active = json.boolean("active"), expiresAt = json.instantOrNull("expires_at"),
            productId = json.stringOrNull("product_id"), purchaseDate = json.instant("purchase_date"),
            store = json.stringOrNull("store")?.let(::StorePlatform),
            environment = json.stringOrNull("environment")?.let(::StoreEnvironment), source = json.string("source")
        )
    }
}

/** A subscription and its state (schema `SubscriptionInfo`). */
data class SubscriptionInfo(
    /** The catalog product of the current period. */
    val productId: String?,
    /** The store product of the current period. */
    val storeProductId: String?,
    /** `auto_renewable` or `non_renewing`. */
    val type: ProductType,
    val store: StorePlatform,
    val environment: StoreEnvironment,
    /** The store's id of the subscription. */
    val originalTransactionId: String,
    /** `trial`, `active`, `grace_period`, `billing_retry`, `paused`, `expired`, `revoked` or `refunded`. */
    val state: String,
    /** Whether its entitlements are in force now. */
    val active: Boolean,
    /** `trial`, `intro` or `normal`. */
    val periodType: String,
    val startedAt: Instant?,
    /** When the current (or last) paid period ends. */
    val expiresAt: Instant?,
    /** Whether it renews; `null` while the store has not said. */
    val willRenew: Boolean?,
    /** The store product the next period renews into, when it differs. */
    val renewsIntoStoreProductId: String?,
    val gracePeriodExpiresAt: Instant?,
    /** Why it expired. */
    val expirationReason: String?,
    val refundedAt: Instant?,
    val revokedAt: Instant?
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "store_product_id" to storeProductId, "type" to type.rawValue,
        "store" to store.rawValue, "environment" to environment.rawValue,
        "original_transaction_id" to originalTransactionId, "state" to state, "active" to active,
        "period_type" to periodType, "started_at" to startedAt, "expires_at" to expiresAt, "will_renew" to willRenew,
        "renews_into_store_product_id" to renewsIntoStoreProductId, "grace_period_expires_at" to gracePeriodExpiresAt,
        "expiration_reason" to expirationReason, "refunded_at" to refundedAt, "revoked_at" to revokedAt
    )

    companion object {
        fun from(json: JsonObject) = SubscriptionInfo(
            productId = json.stringOrNull("product_id"), storeProductId = json.stringOrNull("store_product_id"),
            type = ProductType(json.string("type")), store = StorePlatform(json.string("store")),
            environment = StoreEnvironment(json.string("environment")),
            originalTransactionId = json.string("original_transaction_id"), state = json.string("state"),
            active = json.boolean("active"), periodType = json.string("period_type"),
            startedAt = json.instantOrNull("started_at"), expiresAt = json.instantOrNull("expires_at"),
            willRenew = json.booleanOrNull("will_renew"),
            renewsIntoStoreProductId = json.stringOrNull("renews_into_store_product_id"),
            gracePeriodExpiresAt = json.instantOrNull("grace_period_expires_at"),
            expirationReason = json.stringOrNull("expiration_reason"), refundedAt = json.instantOrNull("refunded_at"),
            revokedAt = json.instantOrNull("revoked_at")
        )
    }
}

/** A consumable, non-consumable or non-renewing purchase (schema `NonSubscriptionPurchase`). */
data class NonSubscriptionPurchase(
    /** The catalog product; `null` while the store product is not in the catalog. */
    val productId: String?,
    val storeProductId: String,
    /** `consumable`, `non_consumable`, `non_renewing` or `unknown`. */
    val type: ProductType,
    val store: StorePlatform,
    val environment: StoreEnvironment,
    val transactionId: String,
    val originalTransactionId: String,
    val purchaseDate: Instant,
    /** Units bought. */
    val quantity: Int,
    /** When it was refunded or revoked. */
    val revokedAt: Instant?,
    /** `app_issue` or `other`. */
    val revocationReason: String?
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "store_product_id" to storeProductId, "type" to type.rawValue,
        "store" to store.rawValue, "environment" to environment.rawValue, "transaction_id" to transactionId,
        "original_transaction_id" to originalTransactionId, "purchase_date" to purchaseDate, "quantity" to quantity,
        "revoked_at" to revokedAt, "revocation_reason" to revocationReason
    )

    companion object {
        fun from(json: JsonObject) = NonSubscriptionPurchase(
            productId = json.stringOrNull("product_id"), storeProductId = json.string("store_product_id"),
            type = ProductType(json.string("type")), store = StorePlatform(json.string("store")),
            environment = StoreEnvironment(json.string("environment")), transactionId = json.string("transaction_id"),
            originalTransactionId = json.string("original_transaction_id"),
            purchaseDate = json.instant("purchase_date"), quantity = json.int("quantity"),
            revokedAt = json.instantOrNull("revoked_at"), revocationReason = json.stringOrNull("revocation_reason")
        )
    }
}

/** The app's own free trial of a customer (schema `TrialInfo`). */
data class TrialInfo(
    /** `none`, `active` or `expired`. */
    val state: String,
    val productId: String? = null,
    val startedAt: Instant? = null,
    val expiresAt: Instant? = null
) {
    fun toJson() = jsonOf(
        "state" to state, "product_id" to productId, "started_at" to startedAt, "expires_at" to expiresAt
    )

    companion object {
        fun from(json: JsonObject) = TrialInfo(
            state = json.string("state"), productId = json.stringOrNull("product_id"),
            startedAt = json.instantOrNull("started_at"), expiresAt = json.instantOrNull("expires_at")
        )
    }
}

/** Whether an introductory offer or free trial may be offered (schema `EligibilityInfo`). */
data class EligibilityInfo(
    val productId: String,
    /** Whether it may be offered, on any store. */
    val eligible: Boolean,
    /** Why not (`trial_used`, `intro_offer_used`, ...); `null` when eligible. */
    val reason: String?
) {
    fun toJson() = jsonOf("product_id" to productId, "eligible" to eligible, "reason" to reason)

    companion object {
        fun from(json: JsonObject) = EligibilityInfo(
            json.string("product_id"), json.boolean("eligible"), json.stringOrNull("reason")
        )
    }
}

/** A product the customer owns without a store purchase, and why (schema `ProductGrant`). */
data class ProductGrant(
    val productId: String,
    /** `free` (claimed), `included` (a paid variant of the app includes it) or `grandfathered`. */
    val source: String,
    val grantedAt: Instant
) {
    fun toJson() = jsonOf("product_id" to productId, "source" to source, "granted_at" to grantedAt)

    companion object {
        fun from(json: JsonObject) = ProductGrant(
            json.string("product_id"), json.string("source"), json.instant("granted_at")
        )
    }
}

/** The answer to `POST /v1/customers/{app_user_id}/claims` (schema `ProductClaimResult`). */
data class ProductClaimResult(
    val productId: String,
    val source: String,
    val grantedAt: Instant,
    /** Whether this call granted it (`false`: claimed before). */
    val created: Boolean,
    /** The customer as committed. */
    val customer: CustomerInfo
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "source" to source, "granted_at" to grantedAt, "created" to created,
        "customer" to customer.toJson()
    )

    companion object {
        fun from(json: JsonObject) = ProductClaimResult(
            json.string("product_id"), json.string("source"), json.instant("granted_at"), json.boolean("created"),
            CustomerInfo.from(json.obj("customer"))
        )
    }
}
