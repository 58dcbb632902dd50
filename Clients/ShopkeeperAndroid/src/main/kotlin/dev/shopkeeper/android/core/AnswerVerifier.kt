package dev.shopkeeper.android.core

import java.net.URI
import java.security.GeneralSecurityException
import java.security.KeyFactory
import java.security.PublicKey
import java.security.Signature
import java.security.spec.X509EncodedKeySpec
import java.util.Base64
import java.util.UUID

/**
 * Checks the signature Shopkeeper's gateway puts on its answers (`X-Shopkeeper-Signature`, see `docs/openapi.yaml`,
 * "Signed answers") when the app trusts answer keys ([ShopkeeperConfiguration.answerKeys]): each request carries a
 * fresh nonce, and an answer is taken only if one of the trusted keys signed exactly it (status, the request's path
 * and query, that nonce, the entity tag and the body) within [ShopkeeperConfiguration.answerMaxAgeSeconds] of the
 * device's clock. So a proxy or a tampered device cannot flip `active` to `true`, replay an older answer, drop the
 * signature or hand one request's answer to another: each is [ShopkeeperException.UntrustedAnswer]. ShopkeeperKit's
 * `AnswerVerifier`, byte for byte.
 *
 * Ed25519 comes from `java.security` (`Signature.getInstance("Ed25519")`): the JDK has it from 15, Android from API 33.
 */
internal class AnswerVerifier(keys: Map<String, String>, private val maxAgeSeconds: Long) {
    /** The trusted keys by id; `null` for a configured key that is not a 32-byte Ed25519 public key in base64. */
    private val keys: Map<String, PublicKey?> = keys.mapValues { publicKey(it.value) }

    /** A fresh nonce for one request. */
    fun makeNonce(): String = UUID.randomUUID().toString()

    /**
     * Throws [ShopkeeperException.UntrustedAnswer] unless [answer] is signed by a trusted key for the request to
     * [target] (path and query as sent) with [nonce], at most the configured age from [nowSeconds].
     */
    fun verify(answer: HttpAnswer, target: String, nonce: String, nowSeconds: Long = System.currentTimeMillis() / 1000) {
        val header = answer.header(SIGNATURE_HEADER) ?: throw untrusted("the answer is unsigned")
        val items = header.split(";").map { it.trim() }
        if (items.first() != "v1") throw untrusted("unknown signature version in '$header'")
        val parts = HashMap<String, String>()
        for (item in items.drop(1)) {
            val equals = item.indexOf('=')
            if (equals < 0) throw untrusted("malformed signature")
            parts[item.substring(0, equals)] = item.substring(equals + 1)
        }
        val keyId = parts["key"]
        val time = parts["t"]
        val seconds = time?.toLongOrNull()
        val signature = parts["sig"]?.let { decodeBase64(it) }
        if (keyId == null || time == null || seconds == null || signature == null) {
            throw untrusted("malformed signature '$header'")
        }
        if (!keys.containsKey(keyId)) throw untrusted("signed with key '$keyId', which the app does not trust")
        val key = keys[keyId] ?: throw untrusted("the configured key '$keyId' is not a base64 Ed25519 public key")
        val message = message(answer.status, target, nonce, time, answer.header("ETag"), answer.body)
        if (!isValid(key, signature, message)) throw untrusted("the signature does not match this answer to this request")
        if (Math.abs(seconds - nowSeconds) > maxAgeSeconds) {
            throw untrusted("signed at $seconds, more than $maxAgeSeconds s from the device's clock")
        }
    }

    private fun isValid(key: PublicKey, signature: ByteArray, message: ByteArray): Boolean = try {
        val verifier = Signature.getInstance(ALGORITHM)
        verifier.initVerify(key)
        verifier.update(message)
        verifier.verify(signature)
    } catch (error: GeneralSecurityException) {
        false
    }

    private fun untrusted(reason: String) = ShopkeeperException.UntrustedAnswer(reason)

    companion object {
        const val NONCE_HEADER = "X-Shopkeeper-Nonce"
        const val SIGNATURE_HEADER = "X-Shopkeeper-Signature"
        private const val ALGORITHM = "Ed25519"

        /** The DER prefix of an Ed25519 `SubjectPublicKeyInfo` (RFC 8410), before the 32 raw key bytes. */
        private val SPKI_PREFIX = byteArrayOf(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00)

        /**
         * The bytes the gateway signs: these lines joined by a line feed, UTF-8, no final line feed (`docs/openapi.yaml`,
         * "Signed answers").
         */
        fun message(status: Int, target: String, nonce: String, time: String, etag: String?, body: ByteArray): ByteArray =
            listOf("shopkeeper-answer-v1", status.toString(), target, nonce, time, etag ?: "", Sha256.hex(body))
                .joinToString("\n").toByteArray(Charsets.UTF_8)

        /** The request target a URL is sent with: its path and query, percent-encoded as on the wire. */
        fun target(url: String): String {
            val uri = URI(url)
            val path = uri.rawPath.let { if (it.isNullOrEmpty()) "/" else it }
            return uri.rawQuery?.let { "$path?$it" } ?: path
        }

        /** A 32-byte Ed25519 public key from its base64 text, or `null` when it is not one. */
        fun publicKey(text: String): PublicKey? {
            val raw = decodeBase64(text) ?: return null
            if (raw.size != 32) return null
            return try {
                KeyFactory.getInstance(ALGORITHM).generatePublic(X509EncodedKeySpec(SPKI_PREFIX + raw))
            } catch (error: GeneralSecurityException) {
                null
            }
        }

        private fun decodeBase64(text: String): ByteArray? = try {
            Base64.getDecoder().decode(text)
        } catch (error: IllegalArgumentException) {
            null
        }
    }
}
