package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.ConsumeResult
import dev.shopkeeper.android.models.CustomerInfo
import java.util.UUID

/**
 * Spends of consumable units, each kept on disk with its `Idempotency-Key` until Shopkeeper answered it, so that a
 * spend whose answer was lost (or that a crash interrupted) goes again with the same key and is spent once.
 */
internal class SpendQueue(
    private val api: ShopkeeperApi,
    private val box: StateBox,
    private val publish: (CustomerInfo) -> Unit
) {
    /** The kept spend of this product and quantity for the current user, or a new one saved first; then sent. */
    suspend fun consume(productId: String, quantity: Int): ConsumeResult {
        require(quantity >= 1) { "quantity is at least 1" }
        var entry: PendingConsume? = null
        box.update { state ->
            val user = state.appUserId
            val waiting = state.pendingConsumes.firstOrNull {
                it.appUserId == user && it.productId == productId && it.quantity == quantity
            }
            if (waiting != null) {
                entry = waiting
                state
            } else {
                val made = PendingConsume(UUID.randomUUID().toString(), user, productId, quantity)
                entry = made
                state.copy(pendingConsumes = state.pendingConsumes + made)
            }
        }
        return send(entry ?: throw IllegalStateException("no spend"))
    }

    /** Sends every spend still waiting for its answer, each with its own key. */
    suspend fun retry() {
        for (entry in box.get().pendingConsumes) {
            try {
                send(entry)
            } catch (error: ShopkeeperException) {
                // Kept when the answer may change; dropped on a verdict (send decides).
            }
        }
    }

    private suspend fun send(entry: PendingConsume): ConsumeResult {
        val result = try {
            api.consume(entry.appUserId, entry.productId, entry.quantity, entry.idempotencyKey)
        } catch (error: ShopkeeperException) {
            // A verdict (409 insufficient_balance, 404, 422) is final for this key; keep it only when no answer came,
            // or one that may change.
            if (error is ShopkeeperException.Server && !error.isRetryable) forget(entry)
            throw error
        }
        forget(entry)
        publish(result.customer)
        return result
    }

    private fun forget(entry: PendingConsume) {
        try {
            box.update { state -> state.copy(pendingConsumes = state.pendingConsumes.filter { it.idempotencyKey != entry.idempotencyKey }) }
        } catch (error: ShopkeeperException) {
            // Kept on disk: sent again with its key, which the server answers as the first time.
        }
    }
}
