package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.PurchaseProof

/**
 * How the Play Billing device store (`src/playbilling`) maps Play Billing's values to the core's, as plain
 * functions of plain values, so the JVM tests cover every rule the Android-only code follows.
 */
object PlayBillingMapping {
    /** `Purchase.PurchaseState.PURCHASED`. */
    const val PURCHASED = 1
    /** `Purchase.PurchaseState.PENDING`: paid later (cash, a slow card); never granted before it completes. */
    const val PENDING = 2

    /** `BillingClient.ProductType` of a catalog product: `subs` for auto-renewable subscriptions, else `inapp`. */
    fun billingProductType(type: ProductType): String = if (type == ProductType.AUTO_RENEWABLE) "subs" else "inapp"

    /** Which Play Developer API the server looks a token up with, by the `BillingClient.ProductType` it came from. */
    fun purchaseKind(billingProductType: String): PlayPurchaseKind =
        if (billingProductType == "subs") PlayPurchaseKind.SUBSCRIPTION else PlayPurchaseKind.PRODUCT

    /**
     * The transaction to keep and send for a Play `Purchase`, or `null` when there is nothing to send yet (pending, or
     * a state Play has not settled). Its id is the order id (a stable per-purchase id), or the token when Play gives
     * none (some test purchases); the account token is the obfuscated account id when it is one the client set.
     */
    fun transaction(
        purchaseState: Int,
        purchaseToken: String,
        orderId: String?,
        products: List<String>,
        obfuscatedAccountId: String?,
        billingProductType: String,
        productType: ProductType?
    ): DeviceTransaction? {
        if (purchaseState != PURCHASED) return null
        val product = products.firstOrNull() ?: return null
        return DeviceTransaction(
            id = if (orderId.isNullOrEmpty()) purchaseToken else orderId,
            storeProductId = product,
            proof = PurchaseProof.PlayPurchase(purchaseToken, product, purchaseKind(billingProductType)),
            appAccountToken = obfuscatedAccountId?.let { DeviceTransaction.parseUuid(it) },
            productType = productType ?: if (billingProductType == "subs") ProductType.AUTO_RENEWABLE else null
        )
    }

    /** What a `BillingResult` response code of a purchase flow means to the core. */
    sealed class LaunchVerdict {
        /** Bought (or pending): read the purchases. */
        object Proceed : LaunchVerdict()
        /** The user backed out: nothing to send. */
        object Cancelled : LaunchVerdict()
        /** The account owns it unconsumed: it is among the unfinished purchases, send that one. */
        object AlreadyOwned : LaunchVerdict()
        /** Play failed; [retryable] when trying again later may work (service or network trouble). */
        data class Failed(val responseCode: Int, val retryable: Boolean) : LaunchVerdict()
    }

    /** The verdict on a `BillingClient.BillingResponseCode`. */
    fun launchVerdict(responseCode: Int): LaunchVerdict = when (responseCode) {
        0 -> LaunchVerdict.Proceed
        1 -> LaunchVerdict.Cancelled
        7 -> LaunchVerdict.AlreadyOwned
        -3, -1, 2, 6, 12 -> LaunchVerdict.Failed(responseCode, retryable = true)
        else -> LaunchVerdict.Failed(responseCode, retryable = false)
    }
}
