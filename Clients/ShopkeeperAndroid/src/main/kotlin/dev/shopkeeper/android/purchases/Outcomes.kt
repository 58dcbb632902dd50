package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.models.PurchaseResponse
import dev.shopkeeper.android.models.RejectedProof
import dev.shopkeeper.android.models.TransactionOutcome

/** How a purchase ended. */
sealed class PurchaseOutcome {
    /** Shopkeeper verified and granted it; the store purchase is finished. */
    data class Delivered(val response: PurchaseResponse) : PurchaseOutcome()

    /** Shopkeeper will never take it (the code says why); the store purchase is finished. */
    data class Refused(val code: String) : PurchaseOutcome()

    /** Not delivered yet (an outage, no network): kept unfinished and sent again later. Nothing is lost. */
    data class Pending(val error: ShopkeeperException) : PurchaseOutcome()
}

/** A purchase finished because Shopkeeper will never take it. */
data class RefusedTransaction(val transaction: DeviceTransaction, val code: String)

/**
 * What "Restore purchases" did: what the customer owns now, and what became of each purchase the store account holds.
 * A purchase of an account that logged in stays with that account: it is listed in [ownedByOtherAccount], and the app
 * can ask the person to log in to that account to use it.
 */
data class RestoreResult(
    val customer: CustomerInfo,
    val outcomes: List<TransactionOutcome> = emptyList(),
    /** Proofs that did not verify. */
    val rejected: List<RejectedProof> = emptyList()
) {
    /** Purchases bound to another account, one that logged in: nothing was applied. */
    val ownedByOtherAccount: List<TransactionOutcome>
        get() = outcomes.filter { it.outcome == TransactionOutcome.OWNED_BY_OTHER_ACCOUNT }

    /** Purchases that are this customer's now (granted or credited by this restore, or already theirs). */
    val restored: List<TransactionOutcome>
        get() = outcomes.filter { it.outcome in TransactionOutcome.RESTORED }
}
