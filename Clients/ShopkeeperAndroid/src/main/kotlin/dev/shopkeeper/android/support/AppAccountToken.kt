package dev.shopkeeper.android.support

import java.nio.ByteBuffer
import java.security.MessageDigest
import java.util.UUID

/**
 * The account token Shopkeeper expects with a purchase: the RFC 9562 version 5 (SHA-1, name-based) UUID of the app
 * user id in Shopkeeper's namespace. On Google Play it is the purchase's `obfuscatedAccountId` (Play allows 64
 * characters and asks for no personal data; the server takes the token or the id itself), on the App Store the
 * `appAccountToken`. The server refuses a purchase whose token was made for another customer
 * (`403 obfuscated_account_id_mismatch`), so a purchase cannot be presented by someone else.
 */
object AppAccountToken {
    /** Shopkeeper's namespace of app user ids (the server's `AppAccountToken.namespace`). */
    val NAMESPACE: UUID = UUID.fromString("6f9e2b43-1c5d-4a8e-9b17-3e52a4c0d961")

    /** The token of [appUserId]. */
    fun uuid(appUserId: String): UUID {
        val digest = MessageDigest.getInstance("SHA-1")
        digest.update(ByteBuffer.allocate(16).putLong(NAMESPACE.mostSignificantBits).putLong(NAMESPACE.leastSignificantBits).array())
        val hash = digest.digest(appUserId.toByteArray(Charsets.UTF_8))
        hash[6] = ((hash[6].toInt() and 0x0f) or 0x50).toByte()
        hash[8] = ((hash[8].toInt() and 0x3f) or 0x80).toByte()
        val buffer = ByteBuffer.wrap(hash, 0, 16)
        return UUID(buffer.long, buffer.long)
    }

    /** The token as Play's `obfuscatedAccountId` and the server's `obfuscated_account_id` carry it: lowercase. */
    fun obfuscatedAccountId(appUserId: String): String = uuid(appUserId).toString()
}
