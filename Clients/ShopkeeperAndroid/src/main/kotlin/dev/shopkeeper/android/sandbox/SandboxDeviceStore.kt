package dev.shopkeeper.android.sandbox

import dev.shopkeeper.android.core.HttpExchange
import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.purchases.DevicePurchaseRequest
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.DeviceTransaction
import dev.shopkeeper.android.support.JsonFile
import java.io.File
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/**
 * A device that buys at Shopkeeper's sandbox Google Play (`POST /sandbox/google/purchases` of
 * `shopkeeper-sandbox-store`) over HTTP: for the JVM, tests and demos. Like Play, it keeps the purchases not finished
 * yet in a file of the device ([deviceDirectory]) and the Google account's purchases in a file of the account
 * ([accountDirectory]): two devices of one account share the account directory, so a new device can restore. A
 * purchase may be made pending (Play's `PENDING`: paid later in cash); [complete] completes it and tells the listener.
 */
class SandboxDeviceStore(
    /** The sandbox store's URL (`SHOPKEEPER_SANDBOX_URL`). */
    val sandboxUrl: String,
    /** The app's package name (the sandbox store's Play apps are the demo's bundle ids). */
    val packageName: String,
    /** This device's own files. */
    val deviceDirectory: File,
    /** The Google account's files (shared by the account's devices). */
    val accountDirectory: File = deviceDirectory,
    /** The Google account's name at the sandbox store (it cannot buy a one-time product it owns unconsumed). */
    val buyer: String? = null
) : DeviceStore {
    override val platform = StorePlatform.PLAY_STORE

    /** When true, purchases are made pending until [complete]. */
    @Volatile
    var pendingPurchases = false

    private val exchange = HttpExchange(30_000)
    private val unfinished = JsonFile(File(deviceDirectory, "sandbox-play-unfinished.json"))
    private val owned = JsonFile(File(accountDirectory, "sandbox-play-account.json"))
    private val pending = JsonFile(File(deviceDirectory, "sandbox-play-pending.json"))
    @Volatile
    private var listener: ((DeviceTransaction) -> Unit)? = null

    /** Sandbox purchases are test purchases: the catalog shows development builds' products. */
    override suspend fun buildKind() = BuildKind.DEVELOPMENT

    /** Buys at the sandbox store; a completed purchase is kept as unfinished before it is returned. */
    override suspend fun purchase(request: DevicePurchaseRequest): DeviceTransaction? {
        val kind = if (request.productType == ProductType.AUTO_RENEWABLE) PlayPurchaseKind.SUBSCRIPTION else PlayPurchaseKind.PRODUCT
        val body = jsonOf(
            "package_name" to packageName, "product_id" to request.storeProductId, "type" to kind.rawValue,
            "quantity" to request.quantity, "obfuscated_account_id" to request.obfuscatedAccountId,
            "period" to if (kind == PlayPurchaseKind.SUBSCRIPTION) (request.period ?: "P1M") else null,
            "pending" to if (pendingPurchases) true else null, "buyer" to buyer
        )
        val answer = post("/sandbox/google/purchases", body)
        val transaction = DeviceTransaction(
            id = answer.string("order_id"), storeProductId = request.storeProductId,
            proof = PurchaseProof.PlayPurchase(answer.string("purchase_token"), request.storeProductId, kind),
            appAccountToken = request.appAccountToken, productType = request.productType
        )
        // 2: pending. Play Billing reports it with state PENDING; nothing to send until it completes.
        if (answer.int("purchase_state") == 2) {
            synchronized(this) { pending.write(list(listOf(transaction) + read(pending))) }
            return null
        }
        record(transaction)
        return transaction
    }

    /** The pending purchases' completion (`POST /sandbox/google/purchases/{token}/complete`), told to the listener. */
    suspend fun complete(): List<DeviceTransaction> {
        val waiting = synchronized(this) { read(pending) }
        for (transaction in waiting) {
            val token = (transaction.proof as PurchaseProof.PlayPurchase).token
            post("/sandbox/google/purchases/${ShopkeeperApi.segment(token)}/complete", emptyMap())
            synchronized(this) { pending.write(list(read(pending).filter { it.id != transaction.id })) }
            record(transaction)
            listener?.invoke(transaction)
        }
        return waiting
    }

    override suspend fun unfinishedTransactions(): List<DeviceTransaction> = synchronized(this) { read(unfinished) }

    /** The account's purchases that may still be in force: everything but consumables (Shopkeeper decides). */
    override suspend fun currentEntitlements(): List<DeviceTransaction> =
        synchronized(this) { read(owned) }.filter { it.productType != ProductType.CONSUMABLE }

    /** Forgets the purchase as unfinished (the server acknowledges or consumes it at the sandbox Play). */
    override suspend fun finish(transaction: DeviceTransaction) {
        synchronized(this) { unfinished.write(list(read(unfinished).filter { it.id != transaction.id })) }
    }

    override fun setTransactionListener(listener: ((DeviceTransaction) -> Unit)?) {
        this.listener = listener
    }

    private fun record(transaction: DeviceTransaction) = synchronized(this) {
        unfinished.write(list(read(unfinished) + transaction))
        owned.write(list(read(owned) + transaction))
    }

    private fun read(file: JsonFile): List<DeviceTransaction> =
        file.read()?.list("transactions", DeviceTransaction.Companion::from) ?: emptyList()

    private fun list(transactions: List<DeviceTransaction>) = jsonOf("transactions" to transactions.map { it.toJson() })

    private suspend fun post(path: String, body: Map<String, Any?>): JsonObject {
        val url = sandboxUrl.trimEnd('/') + path
        val answer = withContext(Dispatchers.IO) {
            exchange.send("POST", url, mapOf("Content-Type" to "application/json"), Json.write(body).toByteArray(Charsets.UTF_8))
        }
        if (answer.status !in 200..299) {
            throw ShopkeeperException.DeviceStore("the sandbox store answered ${answer.status}: ${answer.text.take(300)}")
        }
        return try {
            JsonObject.parse(answer.text)
        } catch (error: ShopkeeperException.Decoding) {
            throw ShopkeeperException.DeviceStore("the sandbox store's answer does not decode: ${error.message}")
        }
    }
}
