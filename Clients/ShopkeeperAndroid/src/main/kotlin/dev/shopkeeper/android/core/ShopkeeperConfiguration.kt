package dev.shopkeeper.android.core

import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.support.FileIdStore
import dev.shopkeeper.android.support.IdStore
import java.io.File
import java.net.URL

/**
 * Where the app's Shopkeeper is and who the app is. Only the gateway, the public key, the app version and the
 * storage directory are required; everything is checked here, so a wrong setting fails at start, not mid-purchase.
 */
class ShopkeeperConfiguration(
    /** The gateway's base URL (`https://shop.example.com`). */
    val baseUrl: String,
    /** The app's public key (`pk_...`). Never ship a secret key in an app: one is refused here. */
    val apiKey: String,
    /** This build's app version (`versionName`), one to four dot-separated numbers. */
    val appVersion: String,
    /**
     * Where the client keeps its state (ids, the purchase queue): on Android `File(context.filesDir, "shopkeeper")`.
     * One directory per app and Shopkeeper.
     */
    val storageDirectory: File,
    /** The store this build is sold through. */
    val platform: StorePlatform = StorePlatform.PLAY_STORE,
    /** The kind of build; `null` asks the device's store (development for license testers and the sandbox). */
    val buildKind: BuildKind? = null,
    /** The app's variant (a paid `full` edition), if any. */
    val variant: String? = null,
    /** The locale to pick product texts for (`de-AT`); `null` uses the JVM's default locale. */
    val locale: String? = null,
    /**
     * Where this install's anonymous id and device id are kept, apart from the state file. The default is a file in
     * the storage directory's `ids` folder; pass one in storage that Android's backup restores to keep a customer
     * across reinstalls.
     */
    idStore: IdStore? = null,
    /** How requests are retried. */
    val retryPolicy: RetryPolicy = RetryPolicy(),
    /** How long connecting, and then reading an answer, may each take, in milliseconds. */
    val requestTimeoutMillis: Int = 60_000,
    /**
     * The customer token (`Shopkeeper-Customer-Token`) for an app user id, for apps whose customer boundary is
     * `signed`: your own server mints it after logging the user in. `null` (or a callback answering `null`) sends none,
     * as `open` apps need. A callback that throws fails the request as `401 customer_token_unavailable`.
     */
    val customerToken: (suspend (appUserId: String) -> String?)? = null,
    /**
     * The keys the app trusts to sign Shopkeeper's answers, by key id: the base64 Ed25519 public keys of
     * `GET /v1/admin/answer-signing` (two during a rotation). When set, every answer must be signed by one of them for
     * its own request, or it is refused as [ShopkeeperException.UntrustedAnswer] and never used or cached. Empty (the
     * default) takes answers unsigned. Needs Ed25519 in `java.security`: Android API 33 or a JDK 15 and later.
     */
    val answerKeys: Map<String, String> = emptyMap(),
    /** How far (in seconds) a signed answer's time may be from the device's clock. */
    val answerMaxAgeSeconds: Long = 300
) {
    /** The id store in use. */
    val idStore: IdStore = idStore ?: FileIdStore(File(storageDirectory, "ids"))

    init {
        val url = try {
            URL(baseUrl)
        } catch (error: java.net.MalformedURLException) {
            throw IllegalArgumentException("baseUrl is not a URL: $baseUrl", error)
        }
        require(url.protocol == "https" || url.protocol == "http") { "baseUrl is an http(s) URL: $baseUrl" }
        require(apiKey.startsWith("pk_")) { "apiKey is the app's public key (pk_...); never ship a secret key" }
        require(APP_VERSION.matches(appVersion)) { "appVersion is one to four dot-separated numbers: $appVersion" }
        require(requestTimeoutMillis > 0) { "requestTimeoutMillis is positive" }
        require(answerMaxAgeSeconds > 0) { "answerMaxAgeSeconds is positive" }
        for ((keyId, key) in answerKeys) {
            require(AnswerVerifier.publicKey(key) != null) {
                "answerKeys[$keyId] is not a base64 Ed25519 public key (32 bytes), or this platform lacks Ed25519"
            }
        }
    }

    /** The base URL without trailing slashes. */
    internal val base: String = baseUrl.trimEnd('/')

    /** The check of signed answers, when the app trusts answer keys. */
    internal val answerVerifier: AnswerVerifier? =
        if (answerKeys.isEmpty()) null else AnswerVerifier(answerKeys, answerMaxAgeSeconds)

    companion object {
        private val APP_VERSION = Regex("^[0-9]{1,9}(\\.[0-9]{1,9}){0,3}$")
    }
}
