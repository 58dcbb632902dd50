package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.content.ContentDownloads
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.Availability
import dev.shopkeeper.android.models.CatalogView
import dev.shopkeeper.android.models.ConsumeResult
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.EligibilityInfo
import dev.shopkeeper.android.models.OfferingsView
import dev.shopkeeper.android.models.ProductClaimResult
import dev.shopkeeper.android.models.TrialInfo
import dev.shopkeeper.android.support.AppAccountToken
import dev.shopkeeper.android.support.InstallIds
import dev.shopkeeper.android.support.JsonFile
import java.io.Closeable
import java.io.File
import java.time.Instant
import java.util.Locale
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.launch

/**
 * ShopkeeperAndroid's front door: the catalog, purchases that are never lost, restore, consumables, trials and ids,
 * for one app on one device; the Kotlin twin of ShopkeeperKit's `Shopkeeper`.
 *
 * Opens its state in `configuration.storageDirectory` (made on first use) and this install's ids in
 * `configuration.idStore`; call [start] next. Every method may be called from any coroutine; listeners are called on
 * the coroutine that learnt the change (post to the main thread yourself to touch views).
 */
class Shopkeeper(
    val configuration: ShopkeeperConfiguration,
    /** The store on this device. */
    val store: DeviceStore,
    private val clock: () -> Instant = { Instant.now() }
) {
    /** The typed API client underneath. */
    val api = ShopkeeperApi(configuration)

    private val box: StateBox
    private val listeners = CopyOnWriteArrayList<(CustomerInfo) -> Unit>()
    @Volatile
    private var lastCustomerInfo: CustomerInfo? = null
    private val queue: PurchaseQueue
    private val spends: SpendQueue

    init {
        val stateFile = JsonFile(File(configuration.storageDirectory, "state.json"))
        val kept = try {
            configuration.idStore.read()?.let { KeptIds.Kept(it) } ?: KeptIds.Empty
        } catch (error: ShopkeeperException) {
            KeptIds.Unavailable(error)
        }
        val opening = LocalState.opening(stateFile.read()?.let(LocalState.Companion::from), kept) { InstallIds.make() }
        // Not kept now (the id store failed): the next start finds them in the state file and tries again.
        opening.keep?.let { ids ->
            try {
                configuration.idStore.write(ids)
            } catch (error: ShopkeeperException) {
            }
        }
        if (opening.saveState) stateFile.write(opening.state.toJson())
        box = StateBox(stateFile, opening.state)
        queue = PurchaseQueue(api, store, box, configuration.appVersion, clock) { publish(it) }
        spends = SpendQueue(api, box) { publish(it) }
    }

    /** The current app user id: the anonymous id of this install until [logIn]. */
    val appUserId: String
        get() = box.get().appUserId

    /** This install's anonymous id. */
    val anonymousId: String
        get() = box.get().anonymousId

    /** This install's device id (trials, device limits). */
    val deviceId: String
        get() = box.get().deviceId

    /** Purchases waiting for Shopkeeper. */
    val pendingPurchases: List<PendingPurchase>
        get() = box.get().pendingPurchases

    /** Spends waiting for Shopkeeper's answer. */
    val pendingConsumes: List<PendingConsume>
        get() = box.get().pendingConsumes

    /** The products' content packs on this device: downloads (resumed, checked), deletion after a refund. */
    val content: ContentDownloads by lazy {
        ContentDownloads(api, configuration.storageDirectory, configuration.appVersion, { Pair(appUserId, deviceId) }) {
            box.get().deliveredProofs
        }
    }

    /** Purchases finished because Shopkeeper refused them for good, oldest first. */
    val refusedTransactions: List<RefusedTransaction>
        get() = queue.refused.toList()

    // Lifecycle

    /**
     * Sends every unfinished purchase (and unanswered spend) and listens to the store's purchase updates, sending
     * each; kept purchases are sent again on a backoff in [scope] (the application's scope, say) until [stop]. Call it
     * once at launch; calling it again only sends what is waiting.
     */
    suspend fun start(scope: CoroutineScope) {
        queue.scope = scope
        store.setTransactionListener { transaction -> scope.launch { queue.receive(transaction) } }
        queue.collectUnfinished()
        queue.drain(force = true)
        retryPendingConsumes()
    }

    /** Stops listening and retrying (what is kept stays on disk for the next start). */
    fun stop() {
        store.setTransactionListener(null)
        queue.stop()
    }

    // Customer info

    /** What the customer owns now (revalidated by `ETag`); also sent to the listeners when it changed. */
    suspend fun customerInfo(): CustomerInfo {
        val info = api.customerInfo(appUserId)
        publish(info)
        return info
    }

    /**
     * Calls [listener] with every change of the current customer's info as this client learns it (purchases,
     * restores, spends, reads), first with the last known info, if any. Close the answer to stop.
     */
    fun addCustomerInfoListener(listener: (CustomerInfo) -> Unit): Closeable {
        listeners.add(listener)
        lastCustomerInfo?.let(listener)
        return Closeable { listeners.remove(listener) }
    }

    private fun publish(info: CustomerInfo) {
        val state = box.get()
        if (info.appUserId != state.appUserId && info.appUserId !in state.knownUserIds) return
        synchronized(listeners) {
            if (info == lastCustomerInfo) return
            lastCustomerInfo = info
        }
        for (listener in listeners) listener(info)
    }

    // Catalog

    /**
     * The shop as this build sees it: platform, app version, build kind (from the store unless configured), variant
     * and locale filled in. Cached by `ETag`.
     */
    suspend fun catalog(): CatalogView = api.catalog(
        configuration.platform, configuration.appVersion, configuration.buildKind ?: store.buildKind(),
        configuration.variant, configuration.locale ?: deviceLocale(Locale.getDefault())
    )

    /**
     * Which offering to show the current customer, and every offering as this build sees it: platform, app version,
     * build kind, variant and locale filled in as for [catalog]. [country] is the storefront's ISO 3166-1 alpha-2
     * code (Play Billing's `BillingConfig.countryCode`); rules naming countries match only with it. Cached by `ETag`.
     */
    suspend fun offerings(country: String? = null): OfferingsView = api.offerings(
        appUserId, configuration.platform, configuration.appVersion, configuration.buildKind ?: store.buildKind(),
        configuration.variant, configuration.locale ?: deviceLocale(Locale.getDefault()), country
    )

    // Purchases

    /**
     * Buys a catalog product through the device's store with the current user's account token (Play's
     * `obfuscatedAccountId`), keeps the purchase on disk, and sends its proof. Throws
     * [ShopkeeperException.PurchaseNotCompleted] when the user cancelled or the purchase is pending (it is sent once
     * it completes), [ShopkeeperException.ProductUnavailable] for a product this build cannot buy. With
     * [introductoryOffer] a subscription is bought through its introductory offer: pass `true` when the app showed the
     * offer (`products()`' `introductoryOffer`, which Shopkeeper deems this customer eligible for).
     */
    suspend fun purchase(productId: String, quantity: Int = 1, introductoryOffer: Boolean = false): PurchaseOutcome {
        val item = catalog().product(productId)
        val storeProductId = item?.storeProductId
        if (item == null || item.availability != Availability.PURCHASABLE || storeProductId == null) {
            throw ShopkeeperException.ProductUnavailable(productId)
        }
        val buyer = appUserId
        val request = DevicePurchaseRequest(
            storeProductId, item.type, item.duration, AppAccountToken.uuid(buyer), quantity, introductoryOffer
        )
        val transaction = store.purchase(request) ?: throw ShopkeeperException.PurchaseNotCompleted(productId)
        queue.keep(transaction, buyer)
        return queue.send(transaction.id)
    }

    /**
     * Sends every kept purchase now, whatever its backoff says (call it when the app comes to the foreground or the
     * network returns). Answers what became of each.
     */
    suspend fun retryPendingPurchases(): Map<String, PurchaseOutcome> {
        queue.collectUnfinished()
        return queue.drain(force = true)
    }

    /**
     * "Restore purchases": sends the proof of everything the store account owns, whoever it was bought for, and
     * answers what the customer owns now and what became of each purchase. Purchases of an account that logged in
     * stay there and are listed in [RestoreResult.ownedByOtherAccount].
     */
    suspend fun restore(): RestoreResult {
        retryPendingPurchases()
        val owned = store.currentEntitlements()
        if (owned.isEmpty()) return RestoreResult(customerInfo())
        val response = api.restore(appUserId, owned.map { it.proof }, deviceId, configuration.appVersion)
        val customer = response.customer?.also { publish(it) } ?: customerInfo()
        return RestoreResult(customer, response.outcomes, response.rejected)
    }

    /**
     * Attaches what was bought on the web before having an account: [code] is the one-time redemption code the web
     * shop showed (as typed: case, spaces and hyphens do not matter). The purchases move to the current user, once;
     * sending the same code again as the same user answers the same. Answers the user's info, sent to the listeners
     * like any change.
     *
     * Refusals are [ShopkeeperException.Server]s by `code`: `redemption_code_not_found` (mistyped, or of another app),
     * `redemption_code_used` (another user redeemed it), `redemption_code_expired`, `nothing_to_redeem` (the web
     * payment has not arrived yet: the code stays valid, try again shortly).
     */
    suspend fun redeem(code: String): CustomerInfo {
        val info = api.redeem(appUserId, code)
        publish(info)
        return info
    }

    // Consumables

    /**
     * Spends units of a consumable, exactly once: the `Idempotency-Key` is made once and kept on disk until Shopkeeper
     * answers. While a spend of the same product and quantity waits for its answer (after a lost answer or a crash),
     * calling this again sends that spend again with its key instead of a second one.
     */
    suspend fun consume(productId: String, quantity: Int = 1): ConsumeResult = spends.consume(productId, quantity)

    /** Sends every spend still waiting for its answer, each with its own key. */
    suspend fun retryPendingConsumes() = spends.retry()

    // Trials, free products and ids

    /** Starts the app's free trial on this device (once per customer and device); answers the one running. */
    suspend fun startTrial(productId: String? = null): TrialInfo {
        val trial = api.startTrial(appUserId, deviceId, productId)
        try {
            customerInfo()
        } catch (error: ShopkeeperException) {
        }
        return trial
    }

    /** The customer's free trial. */
    suspend fun trial(): TrialInfo = api.trial(appUserId)

    /** Whether an introductory offer or free trial of the product may be offered to this customer on this device. */
    suspend fun eligibility(productId: String): EligibilityInfo = api.eligibility(appUserId, productId, deviceId)

    /** Claims a product the catalog marks `free`: the customer owns it from then on, on every device. */
    suspend fun claim(productId: String): ProductClaimResult {
        val result = api.claimFreeProduct(appUserId, productId)
        publish(result.customer)
        return result
    }

    /**
     * Switches to a logged-in user. From the anonymous id, the login id is linked to it first, so what was bought
     * anonymously belongs to the user (where the public key may not link, as under the `signed` customer boundary,
     * your server links them with the secret key). Answers the user's info.
     */
    suspend fun logIn(newAppUserId: String): CustomerInfo {
        require(newAppUserId.isNotEmpty()) { "an app user id is a non-empty string" }
        val state = box.get()
        if (newAppUserId != state.appUserId && state.appUserId == state.anonymousId) {
            try {
                api.linkAlias(state.appUserId, newAppUserId)
            } catch (error: ShopkeeperException) {
                if (error.code !in SERVERS_JOB) throw error
            }
        }
        use(newAppUserId)
        return customerInfo()
    }

    /**
     * Back to a new anonymous id (what the logged-in user owns stays theirs). The id store keeps it first: were the
     * app's data cleared, the new id would be found, not the logged-in user's old anonymous one.
     */
    fun logOut() {
        val anonymous = InstallIds.makeAnonymousId()
        configuration.idStore.write(InstallIds(anonymous, deviceId))
        box.update { it.copy(anonymousId = anonymous).using(anonymous) }
        lastCustomerInfo = null
        api.clearCache()
    }

    private fun use(appUserId: String) {
        box.update { it.using(appUserId) }
        lastCustomerInfo = null
    }

    companion object {
        /** Codes of a refused link that the app's server, not the client, resolves; logging in goes on. */
        private val SERVERS_JOB = setOf("secret_key_required", "merge_needs_secret_key", "already_owned_by_other_customer")

        /** A locale as the catalog's `locale` parameter takes it (`de-AT`), if it is one. */
        fun deviceLocale(locale: Locale): String? {
            val tag = locale.toLanguageTag()
            val parts = tag.split("-")
            val language = parts[0]
            if (language.length !in 2..3 || !language.all { it in 'a'..'z' || it in 'A'..'Z' } || language == "und") return null
            if (!parts.drop(1).all { part -> part.length in 2..8 && part.all { it.isLetterOrDigit() } }) return null
            return tag
        }
    }
}
