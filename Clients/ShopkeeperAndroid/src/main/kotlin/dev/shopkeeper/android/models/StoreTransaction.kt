package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf
import java.time.Instant

/** A verified store transaction, in one shape for every store (schema `StoreTransaction`). */
data class StoreTransaction(
    val store: StorePlatform,
    val environment: StoreEnvironment,
    /** The store's id of this transaction (Play: the order id). */
    val transactionId: String,
    val originalTransactionId: String,
    val storeProductId: String,
    /** The kind of purchase, when the store says. */
    val type: ProductType?,
    val quantity: Int,
    val purchaseDate: Instant,
    val originalPurchaseDate: Instant?,
    /** When the paid period ends (subscriptions). */
    val expiresDate: Instant?,
    val revocationDate: Instant?,
    /** `app_issue` or `other`. */
    val revocationReason: String?,
    /** `purchased` or `family_shared`. */
    val ownershipType: String,
    val offer: StoreOffer?,
    /** Apple's `appAccountToken`, lowercase. */
    val appAccountToken: String?,
    /** Google's obfuscated account id. */
    val obfuscatedAccountId: String?,
    /** Price in thousandths of [currency]. */
    val priceMilliunits: Long?,
    /** ISO 4217 code. */
    val currency: String?,
    val storefront: String?
) {
    fun toJson() = jsonOf(
        "store" to store.rawValue, "environment" to environment.rawValue, "transaction_id" to transactionId,
        "original_transaction_id" to originalTransactionId, "store_product_id" to storeProductId,
        "type" to type?.rawValue, "quantity" to quantity, "purchase_date" to purchaseDate,
        "original_purchase_date" to originalPurchaseDate, "expires_date" to expiresDate,
        "revocation_date" to revocationDate, "revocation_reason" to revocationReason, "ownership_type" to ownershipType,
        "offer" to offer?.toJson(), "app_account_token" to appAccountToken,
        "obfuscated_account_id" to obfuscatedAccountId, "price_milliunits" to priceMilliunits, "currency" to currency,
        "storefront" to storefront
    )

    companion object {
        fun from(json: JsonObject) = StoreTransaction(
            store = StorePlatform(json.string("store")), environment = StoreEnvironment(json.string("environment")),
            transactionId = json.string("transaction_id"), originalTransactionId = json.string("original_transaction_id"),
            storeProductId = json.string("store_product_id"), type = json.stringOrNull("type")?.let(::ProductType),
            quantity = json.int("quantity"), purchaseDate = json.instant("purchase_date"),
            originalPurchaseDate = json.instantOrNull("original_purchase_date"),
            expiresDate = json.instantOrNull("expires_date"), revocationDate = json.instantOrNull("revocation_date"),
            revocationReason = json.stringOrNull("revocation_reason"), ownershipType = json.string("ownership_type"),
            offer = json.objOrNull("offer")?.let(StoreOffer.Companion::from),
            appAccountToken = json.stringOrNull("app_account_token"),
            obfuscatedAccountId = json.stringOrNull("obfuscated_account_id"),
            priceMilliunits = json.longOrNull("price_milliunits"), currency = json.stringOrNull("currency"),
            storefront = json.stringOrNull("storefront")
        )
    }
}

/** The offer a purchase was made with (schema `StoreOffer`). */
data class StoreOffer(
    /** `introductory`, `promotional`, `offer_code`, `win_back` or `offer`. */
    val type: String,
    val identifier: String?,
    /** `free_trial`, `pay_as_you_go`, `pay_up_front` or `one_time`. */
    val discountType: String?,
    /** The offer's duration (ISO 8601). */
    val period: String?
) {
    fun toJson() = jsonOf("type" to type, "identifier" to identifier, "discount_type" to discountType, "period" to period)

    companion object {
        fun from(json: JsonObject) = StoreOffer(
            json.string("type"), json.stringOrNull("identifier"), json.stringOrNull("discount_type"),
            json.stringOrNull("period")
        )
    }
}

/** What applying one transaction did (schema `TransactionOutcome`). */
data class TransactionOutcome(
    val store: StorePlatform,
    val transactionId: String,
    val productId: String?,
    /**
     * `granted`, `credited`, `already_applied`, `transferred`, `subscription_recorded`, `unknown_product`, `revoked`,
     * `partially_refunded` (some units refunded; the purchase stays), `reinstated`, `not_owned` or (a restore only)
     * `owned_by_other_account`.
     */
    val outcome: String
) {
    fun toJson() = jsonOf(
        "store" to store.rawValue, "transaction_id" to transactionId, "product_id" to productId, "outcome" to outcome
    )

    companion object {
        /** A restore's answer for a purchase bound to an account that logged in (or one the server does not know). */
        const val OWNED_BY_OTHER_ACCOUNT = "owned_by_other_account"

        /** The outcomes that leave the purchase with the customer who presented it. */
        val RESTORED = setOf(
            "granted", "credited", "already_applied", "transferred", "subscription_recorded", "reinstated",
            "partially_refunded"
        )

        fun from(json: JsonObject) = TransactionOutcome(
            StorePlatform(json.string("store")), json.string("transaction_id"), json.stringOrNull("product_id"),
            json.string("outcome")
        )
    }
}

/** The answer to `POST /v1/purchases` (schema `PurchaseResponse`). */
data class PurchaseResponse(
    /** The transactions the proof proves, as recorded. */
    val transactions: List<StoreTransaction>,
    /** What applying each did. */
    val outcomes: List<TransactionOutcome>,
    /** What the customer owns now. */
    val customer: CustomerInfo?,
    /** The app transaction presented (an App Store proof only), once verified. */
    val appTransaction: AppTransactionResult?
) {
    fun toJson() = jsonOf(
        "transactions" to transactions.map { it.toJson() }, "outcomes" to outcomes.map { it.toJson() },
        "customer" to customer?.toJson(), "app_transaction" to appTransaction?.toJson()
    )

    companion object {
        fun from(json: JsonObject) = PurchaseResponse(
            json.list("transactions", StoreTransaction.Companion::from),
            json.list("outcomes", TransactionOutcome.Companion::from),
            json.objOrNull("customer")?.let(CustomerInfo.Companion::from),
            json.objOrNull("app_transaction")?.let(AppTransactionResult.Companion::from)
        )
    }
}

/** The answer to `POST /v1/customers/{app_user_id}/restore` (schema `RestoreResponse`). */
data class RestoreResponse(
    val transactions: List<StoreTransaction>,
    val outcomes: List<TransactionOutcome>,
    /** The proofs that did not verify. */
    val rejected: List<RejectedProof>,
    val customer: CustomerInfo?,
    val appTransaction: AppTransactionResult?
) {
    fun toJson() = jsonOf(
        "transactions" to transactions.map { it.toJson() }, "outcomes" to outcomes.map { it.toJson() },
        "rejected" to rejected.map { it.toJson() }, "customer" to customer?.toJson(),
        "app_transaction" to appTransaction?.toJson()
    )

    companion object {
        fun from(json: JsonObject) = RestoreResponse(
            json.list("transactions", StoreTransaction.Companion::from),
            json.list("outcomes", TransactionOutcome.Companion::from),
            json.list("rejected", RejectedProof.Companion::from),
            json.objOrNull("customer")?.let(CustomerInfo.Companion::from),
            json.objOrNull("app_transaction")?.let(AppTransactionResult.Companion::from)
        )
    }
}

/** A verified StoreKit app transaction and what became of it (schema `AppTransactionResult`); App Store only. */
data class AppTransactionResult(
    val appTransactionId: String,
    val environment: StoreEnvironment,
    val variant: String?,
    val originalApplicationVersion: String?,
    val originalPurchaseDate: Instant?,
    /** `recorded`, `already_recorded` or `transferred`. */
    val outcome: String
) {
    fun toJson() = jsonOf(
        "app_transaction_id" to appTransactionId, "environment" to environment.rawValue, "variant" to variant,
        "original_application_version" to originalApplicationVersion, "original_purchase_date" to originalPurchaseDate,
        "outcome" to outcome
    )

    companion object {
        fun from(json: JsonObject) = AppTransactionResult(
            json.string("app_transaction_id"), StoreEnvironment(json.string("environment")), json.stringOrNull("variant"),
            json.stringOrNull("original_application_version"), json.instantOrNull("original_purchase_date"),
            json.string("outcome")
        )
    }
}

/** A proof of a restore that did not verify (schema `RejectedProof`). */
data class RejectedProof(
    /** JSON pointer to the proof in the request (`/purchase_tokens/2`). */
    val pointer: String,
    /** Why (the codes of a purchase's `422`). */
    val code: String,
    val detail: String
) {
    fun toJson() = jsonOf("pointer" to pointer, "code" to code, "detail" to detail)

    companion object {
        fun from(json: JsonObject) = RejectedProof(json.string("pointer"), json.string("code"), json.string("detail"))
    }
}

/** What a saved proof is worth now (schema `ReceiptValidationResult`). */
data class ReceiptValidationResult(
    /** `valid`, `revoked`, `expired` or `invalid`. */
    val status: String,
    val code: String?,
    val transactions: List<StoreTransaction>,
    /** `delete` when the purchase's downloaded content must go. */
    val contentAction: String?
) {
    fun toJson() = jsonOf(
        "status" to status, "code" to code, "transactions" to transactions.map { it.toJson() },
        "content_action" to contentAction
    )

    companion object {
        fun from(json: JsonObject) = ReceiptValidationResult(
            json.string("status"), json.stringOrNull("code"), json.list("transactions", StoreTransaction.Companion::from),
            json.stringOrNull("content_action")
        )
    }
}

/** What one spend did (schema `ConsumeResult`). */
data class ConsumeResult(
    val productId: String,
    /** Units spent. */
    val consumed: Int,
    /** Units left. */
    val balance: Int,
    /** The customer as committed. */
    val customer: CustomerInfo
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "consumed" to consumed, "balance" to balance, "customer" to customer.toJson()
    )

    companion object {
        fun from(json: JsonObject) = ConsumeResult(
            json.string("product_id"), json.int("consumed"), json.int("balance"), CustomerInfo.from(json.obj("customer"))
        )
    }
}
