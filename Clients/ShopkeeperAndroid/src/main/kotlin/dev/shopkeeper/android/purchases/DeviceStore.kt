package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.products.StoreProduct
import dev.shopkeeper.android.products.StoreProductQuery
import java.util.UUID

/**
 * The store on this device: Google Play Billing on Android, Shopkeeper's sandbox Google Play for tests and the JVM
 * ([dev.shopkeeper.android.sandbox.SandboxDeviceStore]). It buys, lists what is not finished and what the account
 * owns, and finishes a purchase once Shopkeeper has it. Its unfinished purchases survive app restarts (Play keeps
 * unacknowledged purchases and lists them in `queryPurchasesAsync`).
 */
interface DeviceStore {
    /** The store the device buys from. */
    val platform: StorePlatform

    /** The kind of build, as the store sees it: `development` for license testers and the sandbox. */
    suspend fun buildKind(): BuildKind

    /**
     * Buys a product. `null` when the user cancelled or the purchase is pending (Play's `PENDING`: it arrives through
     * the transaction listener once it completes, and only then is it sent and granted).
     */
    suspend fun purchase(request: DevicePurchaseRequest): DeviceTransaction?

    /** Every completed purchase not finished yet (on Play: purchased, not acknowledged or consumed). */
    suspend fun unfinishedTransactions(): List<DeviceTransaction>

    /** The proofs of everything the store account owns now, for restore. */
    suspend fun currentEntitlements(): List<DeviceTransaction>

    /**
     * Tells the store the purchase was delivered, so it is not offered again. On Play the server acknowledges or
     * consumes when it holds the app's Play credentials; an implementation then only forgets it.
     */
    suspend fun finish(transaction: DeviceTransaction)

    /**
     * What the store says of these products for this customer (price, period, introductory offer): Play Billing's
     * `queryProductDetailsAsync`. Products the store does not offer are left out. Throws
     * [dev.shopkeeper.android.core.ShopkeeperException.DeviceStore] when the store's products cannot be loaded (the
     * default, for stores that list none, such as the sandbox): `Shopkeeper.products()` then shows the catalog's
     * price hints.
     */
    suspend fun products(queries: List<StoreProductQuery>): List<StoreProduct> =
        throw ShopkeeperException.DeviceStore("this device store lists no products")

    /**
     * Sets (or with `null` removes) the one listener of purchases that arrive outside [purchase]: renewals seen on the
     * device, pending purchases completed, purchases made elsewhere (Play's `PurchasesUpdatedListener`).
     */
    fun setTransactionListener(listener: ((DeviceTransaction) -> Unit)?)
}

/** What to buy. */
data class DevicePurchaseRequest(
    /** The product's id at the store (the Play product or subscription id). */
    val storeProductId: String,
    /** What kind of product it is (the catalog says). */
    val productType: ProductType,
    /** The subscription period (ISO 8601), for stores that need it (the sandbox). */
    val period: String? = null,
    /**
     * The token Shopkeeper expects: [dev.shopkeeper.android.support.AppAccountToken.uuid] of the buyer. Play
     * Billing sets it as `obfuscatedAccountId` (lowercase), the App Store as `appAccountToken`.
     */
    val appAccountToken: UUID,
    /** Units (consumables). */
    val quantity: Int = 1,
    /**
     * Buy a subscription through its introductory offer (on Play: that offer's token instead of the base plan's), when
     * the app showed it ([dev.shopkeeper.android.products.ShopProduct.introductoryOffer]); stores that choose by
     * themselves ignore it.
     */
    val introductoryOffer: Boolean = false
) {
    /** Play's `obfuscatedAccountId` for this purchase. */
    val obfuscatedAccountId: String
        get() = appAccountToken.toString()
}

/** A purchase of the device's store and its proof. */
data class DeviceTransaction(
    /** The store's id of the purchase (Play: the order id; the purchase token when there is none). */
    val id: String,
    /** The product's id at the store. */
    val storeProductId: String,
    /** What to send Shopkeeper. */
    val proof: PurchaseProof,
    /** The account token it was bought with (Play: the obfuscated account id, when it is a UUID), if any. */
    val appAccountToken: UUID?,
    /** The kind of product, when known. */
    val productType: ProductType?
) {
    fun toJson() = jsonOf(
        "id" to id, "store_product_id" to storeProductId, "proof" to proof.fields(),
        "app_account_token" to appAccountToken?.toString(), "product_type" to productType?.rawValue
    )

    companion object {
        fun from(json: JsonObject) = DeviceTransaction(
            id = json.string("id"), storeProductId = json.string("store_product_id"),
            proof = PurchaseProof.from(json.obj("proof")),
            appAccountToken = json.stringOrNull("app_account_token")?.let { parseUuid(it) },
            productType = json.stringOrNull("product_type")?.let(::ProductType)
        )

        /** A UUID, or `null` for anything else (an obfuscated account id an older app set to something else). */
        fun parseUuid(text: String): UUID? = try {
            if (text.length == 36) UUID.fromString(text) else null
        } catch (error: IllegalArgumentException) {
            null
        }
    }
}
