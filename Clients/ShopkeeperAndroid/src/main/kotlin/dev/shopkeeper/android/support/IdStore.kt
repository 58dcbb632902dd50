package dev.shopkeeper.android.support

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf
import java.io.File
import java.util.UUID

/**
 * The ids that make this install this install: its anonymous id (the customer until someone logs in) and its device
 * id (free trials, device limits, content). They must outlive the app's state, or a reinstall becomes a new person on
 * a new device: a second free trial, and a paid consumable balance stranded under the old id.
 */
data class InstallIds(
    /** This install's anonymous id (`anon_` and a lowercase UUID). */
    val anonymousId: String,
    /** This install's device id. */
    val deviceId: String
) {
    fun toJson() = jsonOf("anonymous_id" to anonymousId, "device_id" to deviceId)

    companion object {
        private val ANONYMOUS = Regex("^anon_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

        /** New ids: an unguessable anonymous id (the reserved form the server recognises as anonymous) and device id. */
        fun make() = InstallIds(makeAnonymousId(), UUID.randomUUID().toString())

        /** A new, unguessable anonymous id (Java's UUID strings are lowercase). */
        fun makeAnonymousId() = "anon_" + UUID.randomUUID().toString()

        /** Whether an id is an anonymous install id as the clients make them (what the public key may link from). */
        fun isAnonymousId(id: String) = ANONYMOUS.matches(id)

        fun from(json: JsonObject) = InstallIds(json.string("anonymous_id"), json.string("device_id"))
    }
}

/** Where [dev.shopkeeper.android.purchases.Shopkeeper] keeps [InstallIds], apart from its state file. */
interface IdStore {
    /** The kept ids; `null` when none are kept yet. Throws only when it cannot tell (the store is unavailable). */
    fun read(): InstallIds?

    /** Keeps the ids, replacing any kept before. */
    fun write(ids: InstallIds)
}

/**
 * [InstallIds] in a JSON file (`ids.json`) of a directory the app chooses. On Android, choose a directory that
 * Auto Backup restores (and that the app does not clear on log out), so a reinstall keeps the customer.
 */
class FileIdStore(val directory: File) : IdStore {
    private val file = JsonFile(File(directory, "ids.json"))

    override fun read(): InstallIds? = file.read()?.let(InstallIds.Companion::from)

    override fun write(ids: InstallIds) = file.write(ids.toJson())
}
