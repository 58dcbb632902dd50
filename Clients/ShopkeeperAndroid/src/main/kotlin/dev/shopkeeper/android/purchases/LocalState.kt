package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.support.AppAccountToken
import dev.shopkeeper.android.support.InstallIds
import java.time.Instant

/** A store purchase whose proof Shopkeeper has not taken yet, kept on disk until it has. */
data class PendingPurchase(
    val transaction: DeviceTransaction,
    /** Who bought it (sent as `app_user_id`). */
    val appUserId: String,
    /** When it was first kept. */
    val since: Instant,
    /** Sends so far. */
    val attempts: Int,
    /** The last failure's code, if any. */
    val lastError: String?,
    /** Not sent again by itself before this time ([Shopkeeper.retryPendingPurchases] sends anyway). */
    val notBefore: Instant
) {
    val id: String
        get() = transaction.id

    fun toJson() = jsonOf(
        "transaction" to transaction.toJson(), "app_user_id" to appUserId, "since" to since, "attempts" to attempts,
        "last_error" to lastError, "not_before" to notBefore
    )

    companion object {
        fun from(json: JsonObject) = PendingPurchase(
            DeviceTransaction.from(json.obj("transaction")), json.string("app_user_id"), json.instant("since"),
            json.int("attempts"), json.stringOrNull("last_error"), json.instant("not_before")
        )
    }
}

/** A spend of consumable units, kept with its idempotency key until Shopkeeper answered it. */
data class PendingConsume(
    /** The `Idempotency-Key`, made once. */
    val idempotencyKey: String,
    val appUserId: String,
    val productId: String,
    val quantity: Int
) {
    fun toJson() = jsonOf(
        "idempotency_key" to idempotencyKey, "app_user_id" to appUserId, "product_id" to productId, "quantity" to quantity
    )

    companion object {
        fun from(json: JsonObject) = PendingConsume(
            json.string("idempotency_key"), json.string("app_user_id"), json.string("product_id"), json.int("quantity")
        )
    }
}

/**
 * The client's state on the device (`state.json`): who the user is, the device id, and what is waiting for
 * Shopkeeper. Its anonymous id and device id mirror the id store's, which keeps them when the app's data is cleared.
 */
data class LocalState(
    /** This install's anonymous id (`anon_` and a UUID, unguessable). */
    val anonymousId: String,
    /** The current app user id (the anonymous id until [Shopkeeper.logIn]). */
    val appUserId: String,
    val deviceId: String,
    /** Every app user id used on this device, to recognise whose a found purchase is by its token. */
    val knownUserIds: List<String>,
    val pendingPurchases: List<PendingPurchase> = emptyList(),
    val pendingConsumes: List<PendingConsume> = emptyList(),
    /** The proof of the last delivered purchase of each catalog product (to ask later whether it still stands). */
    val deliveredProofs: Map<String, PurchaseProof> = emptyMap()
) {
    /** This install's ids as the state holds them. */
    val ids: InstallIds
        get() = InstallIds(anonymousId, deviceId)

    /** Who bought a purchase: the known user whose account token it carries, else the current user. */
    fun buyer(of: DeviceTransaction): String {
        val token = of.appAccountToken ?: return appUserId
        return knownUserIds.firstOrNull { AppAccountToken.uuid(it) == token } ?: appUserId
    }

    /** The state acting for [user] (known from then on). */
    fun using(user: String): LocalState =
        copy(appUserId = user, knownUserIds = if (user in knownUserIds) knownUserIds else knownUserIds + user)

    /** The state with another install's ids (the id store's, which win). */
    fun adopting(ids: InstallIds): LocalState = copy(
        appUserId = if (appUserId == anonymousId) ids.anonymousId else appUserId,
        anonymousId = ids.anonymousId, deviceId = ids.deviceId,
        knownUserIds = if (ids.anonymousId in knownUserIds) knownUserIds else knownUserIds + ids.anonymousId
    )

    fun toJson() = jsonOf(
        "anonymous_id" to anonymousId, "app_user_id" to appUserId, "device_id" to deviceId,
        "known_user_ids" to knownUserIds, "pending_purchases" to pendingPurchases.map { it.toJson() },
        "pending_consumes" to pendingConsumes.map { it.toJson() },
        "delivered_proofs" to deliveredProofs.mapValues { it.value.fields() }
    )

    companion object {
        fun from(json: JsonObject): LocalState {
            val delivered = LinkedHashMap<String, PurchaseProof>()
            json.objOrNull("delivered_proofs")?.let { proofs ->
                for (name in proofs.fields.keys) delivered[name] = PurchaseProof.from(proofs.obj(name))
            }
            return LocalState(
                anonymousId = json.string("anonymous_id"), appUserId = json.string("app_user_id"),
                deviceId = json.string("device_id"), knownUserIds = json.strings("known_user_ids"),
                pendingPurchases = json.listOrNull("pending_purchases", PendingPurchase.Companion::from) ?: emptyList(),
                pendingConsumes = json.listOrNull("pending_consumes", PendingConsume.Companion::from) ?: emptyList(),
                deliveredProofs = delivered
            )
        }

        /** The state of a new install with these ids. */
        fun fresh(ids: InstallIds) = LocalState(ids.anonymousId, ids.anonymousId, ids.deviceId, listOf(ids.anonymousId))

        /** The pause before sending a kept purchase again after [attempts] failed sends: 5 s doubling, at most 1 h. */
        fun backoffSeconds(attempts: Int): Long = Math.min(5L shl Math.min(Math.max(attempts - 1, 0), 20), 3600L)

        /**
         * How the client opens; the id store is the truth for the ids (ShopkeeperKit's rules):
         * - kept ids and no state file: the app's data was cleared, the same person on the same device: a new state
         *   with those ids;
         * - no kept ids and a state file: ids kept only in the state so far: they move to the id store, once;
         * - neither: a first start, new ids for both;
         * - both, differing (a failed write, a restored backup): the state takes the kept ids; the user it was signed
         *   in as stays, unless that was its own anonymous id, and its old ids stay known;
         * - the id store unavailable: the state file's ids; with no state file either there is no telling who this
         *   is, so opening fails rather than making up a new person.
         */
        fun opening(saved: LocalState?, kept: KeptIds, new: () -> InstallIds): Opening = when (kept) {
            is KeptIds.Kept ->
                if (saved == null) Opening(fresh(kept.ids), saveState = true, keep = null)
                else if (saved.ids == kept.ids) Opening(saved, saveState = false, keep = null)
                else Opening(saved.adopting(kept.ids), saveState = true, keep = null)
            is KeptIds.Empty ->
                if (saved != null) Opening(saved, saveState = false, keep = saved.ids)
                else new().let { Opening(fresh(it), saveState = true, keep = it) }
            is KeptIds.Unavailable ->
                if (saved != null) Opening(saved, saveState = false, keep = null) else throw kept.error
        }
    }
}

/** What the id store answered when the client opened. */
sealed class KeptIds {
    data class Kept(val ids: InstallIds) : KeptIds()
    object Empty : KeptIds()
    data class Unavailable(val error: ShopkeeperException) : KeptIds()
}

/** How the client opens: its state, whether to write it, and the ids the id store must keep (`null`: none). */
data class Opening(val state: LocalState, val saveState: Boolean, val keep: InstallIds?)
