package dev.shopkeeper.android.playbilling

import android.app.Activity
import android.content.Context
import com.android.billingclient.api.AcknowledgePurchaseParams
import com.android.billingclient.api.BillingClient
import com.android.billingclient.api.BillingClientStateListener
import com.android.billingclient.api.BillingFlowParams
import com.android.billingclient.api.BillingResult
import com.android.billingclient.api.ConsumeParams
import com.android.billingclient.api.PendingPurchasesParams
import com.android.billingclient.api.ProductDetails
import com.android.billingclient.api.Purchase
import com.android.billingclient.api.PurchasesUpdatedListener
import com.android.billingclient.api.QueryProductDetailsParams
import com.android.billingclient.api.QueryPurchasesParams
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.products.StoreProduct
import dev.shopkeeper.android.products.StoreProductQuery
import dev.shopkeeper.android.purchases.DevicePurchaseRequest
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.DeviceTransaction
import dev.shopkeeper.android.purchases.PlayBillingMapping
import dev.shopkeeper.android.purchases.PlayBillingMapping.LaunchVerdict
import dev.shopkeeper.android.purchases.PlayProductMapping
import java.util.Collections
import kotlin.coroutines.resume
import kotlin.coroutines.suspendCoroutine
import kotlinx.coroutines.CompletableDeferred

/**
 * Google Play Billing (Play Billing Library 7) as the core's [DeviceStore]. Buys with the buyer's account token as
 * `obfuscatedAccountId` (what the server checks), reports `PENDING` purchases as not completed and sends them once
 * Play says they completed (through the transaction listener, or [unfinishedTransactions] at the next start), and
 * leaves acknowledging and consuming to Shopkeeper, which does both once it recorded a purchase when the app's Play
 * credentials are set; with [acknowledgeOnDevice] the device does it instead.
 *
 * Android only: compiled here against a stub of the library (`stubs/playbilling`), shipped through
 * `build.gradle.kts`. Its rules live in [PlayBillingMapping], which the JVM tests cover.
 */
class PlayBillingDeviceStore(
    context: Context,
    /** The activity to show Play's purchase sheet over (the one the user tapped "Buy" in). */
    private val activity: () -> Activity?,
    /** `development` for license testers' builds; Play does not tell. */
    private val buildKind: BuildKind = BuildKind.DISTRIBUTION,
    /** Acknowledge (or consume, for consumables) on the device when finishing, for apps without Play credentials. */
    private val acknowledgeOnDevice: Boolean = false
) : DeviceStore {
    override val platform = StorePlatform.PLAY_STORE

    @Volatile
    private var listener: ((DeviceTransaction) -> Unit)? = null
    @Volatile
    private var launch: CompletableDeferred<Pair<BillingResult, List<Purchase>>>? = null
    /** Tokens finished in this process: Play's cache may list them unacknowledged for a while after the server did it. */
    private val finished = Collections.synchronizedSet(HashSet<String>())
    /** The catalog's product types by store product id, learnt from purchase requests. */
    private val types = Collections.synchronizedMap(HashMap<String, ProductType>())

    private val client: BillingClient = BillingClient.newBuilder(context)
        .setListener(PurchasesUpdatedListener { result, purchases -> onPurchasesUpdated(result, purchases ?: emptyList()) })
        .enablePendingPurchases(PendingPurchasesParams.newBuilder().enableOneTimeProducts().build())
        .build()

    override suspend fun buildKind() = buildKind

    override suspend fun purchase(request: DevicePurchaseRequest): DeviceTransaction? {
        connect()
        types[request.storeProductId] = request.productType
        val billingType = PlayBillingMapping.billingProductType(request.productType)
        val details = productDetails(request.storeProductId, billingType)
        val product = BillingFlowParams.ProductDetailsParams.newBuilder().setProductDetails(details)
        // A subscription is bought through one of its offers: its base plan's, or its introductory offer's when asked.
        if (billingType == BillingClient.ProductType.SUBS) {
            val token = PlayProductMapping.purchaseOfferToken(plain(details).subscriptionOffers, request.introductoryOffer)
                ?: throw ShopkeeperException.ProductUnavailable(request.storeProductId)
            product.setOfferToken(token)
        }
        val params = BillingFlowParams.newBuilder()
            .setProductDetailsParamsList(listOf(product.build()))
            .setObfuscatedAccountId(request.obfuscatedAccountId)
            .build()
        val shown = activity() ?: throw ShopkeeperException.DeviceStore("no activity to show the purchase over")
        val answer = CompletableDeferred<Pair<BillingResult, List<Purchase>>>()
        launch = answer
        val started = client.launchBillingFlow(shown, params)
        val (result, purchases) = if (started.responseCode == 0) answer.await() else Pair(started, emptyList<Purchase>())
        launch = null
        return when (val verdict = PlayBillingMapping.launchVerdict(result.responseCode)) {
            is LaunchVerdict.Proceed -> purchases.filter { request.storeProductId in it.products }
                .mapNotNull { map(it, billingType) }.firstOrNull()
            is LaunchVerdict.Cancelled -> null
            is LaunchVerdict.AlreadyOwned -> unfinishedTransactions().firstOrNull { it.storeProductId == request.storeProductId }
                ?: throw ShopkeeperException.DeviceStore("Play says the account owns ${request.storeProductId} already")
            is LaunchVerdict.Failed -> throw ShopkeeperException.DeviceStore(
                "Play Billing answered ${verdict.responseCode}: ${result.debugMessage}"
            )
        }
    }

    override suspend fun unfinishedTransactions(): List<DeviceTransaction> =
        owned().filter { (purchase, _) -> !purchase.isAcknowledged && purchase.purchaseToken !in finished }
            .mapNotNull { (purchase, type) -> map(purchase, type) }

    override suspend fun currentEntitlements(): List<DeviceTransaction> =
        owned().mapNotNull { (purchase, type) -> map(purchase, type) }

    override suspend fun finish(transaction: DeviceTransaction) {
        val proof = transaction.proof as? dev.shopkeeper.android.models.PurchaseProof.PlayPurchase ?: return
        if (acknowledgeOnDevice) {
            connect()
            val result = if (transaction.productType == ProductType.CONSUMABLE) suspendCoroutine<BillingResult> { done ->
                client.consumeAsync(ConsumeParams.newBuilder().setPurchaseToken(proof.token).build()) { result, _ -> done.resume(result) }
            } else suspendCoroutine { done ->
                client.acknowledgePurchase(AcknowledgePurchaseParams.newBuilder().setPurchaseToken(proof.token).build()) { done.resume(it) }
            }
            if (result.responseCode != 0) {
                throw ShopkeeperException.DeviceStore("Play Billing did not finish the purchase: ${result.debugMessage}")
            }
        }
        finished.add(proof.token)
    }

    /** Play's product details of these products (one-time products and subscriptions asked apart), as store products. */
    override suspend fun products(queries: List<StoreProductQuery>): List<StoreProduct> {
        connect()
        val found = ArrayList<StoreProduct>()
        for ((billingType, group) in queries.groupBy { PlayBillingMapping.billingProductType(it.productType) }) {
            for (details in queryDetails(group.map { it.storeProductId }, billingType)) {
                PlayProductMapping.storeProduct(plain(details))?.let { found.add(it) }
            }
        }
        return found
    }

    /** The fields of Play's details that [PlayProductMapping] reads. */
    private fun plain(details: ProductDetails) = PlayProductMapping.PlayProductDetails(
        productId = details.productId, productType = details.productType, name = details.name,
        description = details.description,
        oneTimePrice = details.oneTimePurchaseOfferDetails?.let {
            PlayProductMapping.PlayOneTimePrice(it.formattedPrice, it.priceAmountMicros, it.priceCurrencyCode)
        },
        subscriptionOffers = (details.subscriptionOfferDetails ?: emptyList()).map { offer ->
            PlayProductMapping.PlaySubscriptionOffer(
                offer.basePlanId, offer.offerId,
                offer.pricingPhases.pricingPhaseList.map {
                    PlayProductMapping.PlayPricingPhase(
                        it.formattedPrice, it.priceAmountMicros, it.priceCurrencyCode, it.billingPeriod,
                        it.billingCycleCount, it.recurrenceMode
                    )
                },
                offer.offerToken
            )
        }
    )

    override fun setTransactionListener(listener: ((DeviceTransaction) -> Unit)?) {
        this.listener = listener
    }

    /** Ends the connection to Play (call it when the app no longer sells). */
    fun close() = client.endConnection()

    private fun onPurchasesUpdated(result: BillingResult, purchases: List<Purchase>) {
        val waiting = launch
        if (waiting != null && !waiting.isCompleted) {
            waiting.complete(Pair(result, purchases))
            return
        }
        // Outside a purchase flow: a pending purchase completed, or one made elsewhere.
        if (result.responseCode != 0) return
        for (purchase in purchases) {
            val type = types[purchase.products.firstOrNull()]
            val billingType = if (type != null) PlayBillingMapping.billingProductType(type) else "inapp"
            map(purchase, billingType)?.let { listener?.invoke(it) }
        }
    }

    private fun map(purchase: Purchase, billingType: String): DeviceTransaction? = PlayBillingMapping.transaction(
        purchase.purchaseState, purchase.purchaseToken, purchase.orderId, purchase.products,
        purchase.accountIdentifiers?.obfuscatedAccountId, billingType, types[purchase.products.firstOrNull()]
    )

    /** Every purchase of the account with the `BillingClient.ProductType` it was queried with. */
    private suspend fun owned(): List<Pair<Purchase, String>> {
        connect()
        val found = ArrayList<Pair<Purchase, String>>()
        for (type in listOf(BillingClient.ProductType.INAPP, BillingClient.ProductType.SUBS)) {
            val (result, purchases) = suspendCoroutine<Pair<BillingResult, List<Purchase>>> { done ->
                client.queryPurchasesAsync(QueryPurchasesParams.newBuilder().setProductType(type).build()) { result, list ->
                    done.resume(Pair(result, list))
                }
            }
            if (result.responseCode != 0) throw ShopkeeperException.DeviceStore("Play Billing: ${result.debugMessage}")
            for (purchase in purchases) found.add(Pair(purchase, type))
        }
        return found
    }

    private suspend fun productDetails(productId: String, billingType: String): ProductDetails =
        queryDetails(listOf(productId), billingType).firstOrNull { it.productId == productId }
            ?: throw ShopkeeperException.ProductUnavailable(productId)

    /** Play's details of these products, all of one `BillingClient.ProductType`. */
    private suspend fun queryDetails(productIds: List<String>, billingType: String): List<ProductDetails> {
        val query = QueryProductDetailsParams.newBuilder().setProductList(
            productIds.map { QueryProductDetailsParams.Product.newBuilder().setProductId(it).setProductType(billingType).build() }
        ).build()
        val (result, details) = suspendCoroutine<Pair<BillingResult, List<ProductDetails>>> { done ->
            client.queryProductDetailsAsync(query) { result, list -> done.resume(Pair(result, list)) }
        }
        if (result.responseCode != 0) throw ShopkeeperException.DeviceStore("Play Billing: ${result.debugMessage}")
        return details
    }

    /** Connects to Play once (again after a disconnection). */
    private suspend fun connect() {
        if (client.isReady) return
        val result = suspendCoroutine<BillingResult> { done ->
            var answered = false
            client.startConnection(object : BillingClientStateListener {
                override fun onBillingSetupFinished(billingResult: BillingResult) {
                    if (!answered) {
                        answered = true
                        done.resume(billingResult)
                    }
                }

                override fun onBillingServiceDisconnected() {}
            })
        }
        if (result.responseCode != 0) throw ShopkeeperException.DeviceStore("Play Billing is unavailable: ${result.debugMessage}")
    }
}
