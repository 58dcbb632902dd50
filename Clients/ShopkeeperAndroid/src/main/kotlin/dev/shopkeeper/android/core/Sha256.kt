package dev.shopkeeper.android.core

import java.security.MessageDigest

/** SHA-256 in lowercase hex, the one way the client writes digests (content files, signed answers' bodies). */
internal object Sha256 {
    /** A new SHA-256 digest to feed in parts. */
    fun digest(): MessageDigest = MessageDigest.getInstance("SHA-256")

    /** The digest's result in lowercase hex. */
    fun hex(digest: MessageDigest): String = digest.digest().joinToString("") { String.format("%02x", it) }

    /** SHA-256 of [bytes] in lowercase hex. */
    fun hex(bytes: ByteArray): String = hex(digest().apply { update(bytes) })
}
