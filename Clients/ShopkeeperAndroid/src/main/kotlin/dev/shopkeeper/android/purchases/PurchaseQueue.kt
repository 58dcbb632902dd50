package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CustomerInfo
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * The purchases kept on disk until Shopkeeper answers `200`, or a `4xx` that says it will never take them; only then
 * are they finished at the store. Anything else (an outage, a `503`, no network, a crash) leaves them kept and
 * unfinished, and they are sent again: at start, after each new purchase, on a backoff while started, and on
 * [Shopkeeper.retryPendingPurchases].
 */
internal class PurchaseQueue(
    private val api: ShopkeeperApi,
    private val store: DeviceStore,
    private val box: StateBox,
    private val appVersion: String,
    private val clock: () -> Instant,
    private val publish: (CustomerInfo) -> Unit
) {
    private val inFlight = HashSet<String>()
    private var retryJob: Job? = null

    /** Where the backoff's retries run while started; `null` when stopped. */
    @Volatile
    var scope: CoroutineScope? = null

    /** Purchases finished because Shopkeeper refused them for good, oldest first. */
    val refused = CopyOnWriteArrayList<RefusedTransaction>()

    /** Keeps a purchase (once per id) for [buyer], on disk before anything is sent. */
    fun keep(transaction: DeviceTransaction, buyer: String) {
        box.update { state ->
            if (state.pendingPurchases.any { it.id == transaction.id }) state
            else {
                val now = now()
                state.copy(pendingPurchases = state.pendingPurchases + PendingPurchase(transaction, buyer, now, 0, null, now))
            }
        }
    }

    /** A purchase that arrived outside a purchase call: kept for whoever its token names, then sent. */
    suspend fun receive(transaction: DeviceTransaction): PurchaseOutcome {
        try {
            keep(transaction, box.get().buyer(transaction))
        } catch (error: ShopkeeperException) {
            // Not kept: the store still lists it as unfinished, so the next start finds it again.
            return PurchaseOutcome.Pending(error)
        }
        return send(transaction.id)
    }

    /** Keeps every unfinished purchase of the store that is not kept yet. */
    suspend fun collectUnfinished() {
        val unfinished = try {
            store.unfinishedTransactions()
        } catch (error: ShopkeeperException) {
            return
        }
        for (transaction in unfinished) {
            try {
                keep(transaction, box.get().buyer(transaction))
            } catch (error: ShopkeeperException) {
                return
            }
        }
    }

    /** Sends the kept purchases whose backoff is over (all of them with [force]). */
    suspend fun drain(force: Boolean): Map<String, PurchaseOutcome> {
        val now = clock()
        val outcomes = LinkedHashMap<String, PurchaseOutcome>()
        for (entry in box.get().pendingPurchases) {
            if (force || !entry.notBefore.isAfter(now)) outcomes[entry.id] = send(entry.id)
        }
        return outcomes
    }

    /** Sends one kept purchase and acts on the verdict. */
    suspend fun send(transactionId: String): PurchaseOutcome {
        val entry = box.get().pendingPurchases.firstOrNull { it.id == transactionId }
            ?: return PurchaseOutcome.Pending(ShopkeeperException.Storage("purchase $transactionId is not kept"))
        synchronized(inFlight) {
            if (!inFlight.add(transactionId)) return PurchaseOutcome.Pending(ShopkeeperException.Transport("already being sent"))
        }
        try {
            val response = try {
                api.submitPurchase(entry.transaction.proof, entry.appUserId, box.get().deviceId, appVersion)
            } catch (error: ShopkeeperException) {
                return onFailure(entry, error)
            }
            // Recorded, but the catalog does not know the product yet: it is granted once the catalog has it and the
            // proof comes again, so the purchase stays unfinished (a consumable would be lost otherwise).
            if (response.outcomes.any { it.outcome == "unknown_product" }) {
                return postpone(transactionId, ShopkeeperException.ProductUnavailable(entry.transaction.storeProductId))
            }
            try {
                store.finish(entry.transaction)
            } catch (error: ShopkeeperException) {
                return postpone(transactionId, error)
            }
            forget(transactionId) { state ->
                val delivered = LinkedHashMap(state.deliveredProofs)
                for (outcome in response.outcomes) outcome.productId?.let { delivered[it] = entry.transaction.proof }
                state.copy(deliveredProofs = delivered)
            }
            response.customer?.let(publish)
            return PurchaseOutcome.Delivered(response)
        } finally {
            synchronized(inFlight) { inFlight.remove(transactionId) }
        }
    }

    private suspend fun onFailure(entry: PendingPurchase, error: ShopkeeperException): PurchaseOutcome {
        val verdict = SubmissionVerdict.forError(error)
        if (verdict !is SubmissionVerdict.Refused) return postpone(entry.id, error)
        try {
            store.finish(entry.transaction)
        } catch (finishing: ShopkeeperException) {
            return postpone(entry.id, finishing)
        }
        forget(entry.id) { it }
        refused.add(RefusedTransaction(entry.transaction, verdict.code))
        return PurchaseOutcome.Refused(verdict.code)
    }

    private fun forget(transactionId: String, also: (LocalState) -> LocalState) {
        try {
            box.update { state -> also(state.copy(pendingPurchases = state.pendingPurchases.filter { it.id != transactionId })) }
        } catch (error: ShopkeeperException) {
            // Still kept on disk: sent again later, which the server answers as the first time.
        }
    }

    private fun postpone(transactionId: String, error: ShopkeeperException): PurchaseOutcome {
        try {
            box.update { state ->
                state.copy(pendingPurchases = state.pendingPurchases.map { entry ->
                    if (entry.id != transactionId) entry
                    else {
                        val attempts = entry.attempts + 1
                        var wait = LocalState.backoffSeconds(attempts).toDouble()
                        val retryAfter = (error as? ShopkeeperException.Server)?.retryAfterSeconds
                        if (retryAfter != null) wait = Math.max(wait, retryAfter)
                        entry.copy(
                            attempts = attempts, lastError = lastError(error),
                            notBefore = now().plusSeconds(Math.ceil(wait).toLong())
                        )
                    }
                })
            }
        } catch (storage: ShopkeeperException) {
            // The backoff is not recorded; the purchase is still kept.
        }
        scheduleRetry()
        return PurchaseOutcome.Pending(error)
    }

    /** The time to keep, in whole seconds as the state file writes it (what is in memory is what a restart reads). */
    private fun now(): Instant = clock().truncatedTo(ChronoUnit.SECONDS)

    private fun lastError(error: ShopkeeperException): String = when (error) {
        is ShopkeeperException.ProductUnavailable -> "unknown_product"
        else -> error.code ?: error.message ?: error.javaClass.simpleName
    }

    /** While started, sends kept purchases again when their backoff ends. */
    fun scheduleRetry() {
        val scope = scope ?: return
        synchronized(this) {
            if (retryJob?.isActive == true) return
            val next = box.get().pendingPurchases.map { it.notBefore }.fold(null as Instant?) { soonest, at ->
                if (soonest == null || at.isBefore(soonest)) at else soonest
            } ?: return
            // At least a second apart, so a state that cannot be written never makes a busy loop.
            val wait = Math.max(1000L, next.toEpochMilli() - clock().toEpochMilli())
            retryJob = scope.launch {
                delay(wait)
                synchronized(this@PurchaseQueue) { retryJob = null }
                drain(force = false)
                scheduleRetry()
            }
        }
    }

    /** Stops the backoff's retries (what is kept stays on disk). */
    fun stop() {
        scope = null
        synchronized(this) {
            retryJob?.cancel()
            retryJob = null
        }
    }
}
