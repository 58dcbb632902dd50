package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.HttpExchange
import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.Shopkeeper
import dev.shopkeeper.android.sandbox.SandboxDeviceStore
import dev.shopkeeper.android.support.FileIdStore
import java.io.File
import java.nio.file.Files
import java.util.UUID

/**
 * The local stack the stack tests run against: the real services, PostgreSQL and the sandbox store, started by
 * `scripts/run` (`test-with-stack` starts one on free ports and names its `local.env` in
 * `SHOPKEEPER_ANDROID_STACK_ENV`).
 */
class Stack private constructor(values: Map<String, String>) {
    val gatewayUrl = values.getValue("SHOPKEEPER_GATEWAY_URL")
    val sandboxUrl = values.getValue("SHOPKEEPER_SANDBOX_URL")
    val publicKey = values.getValue("SHOPKEEPER_PUBLIC_KEY")
    val secretKey = values.getValue("SHOPKEEPER_SECRET_KEY")
    /** The demo app's bundle id, which is also its Play package name at the sandbox store. */
    val packageName = values["SHOPKEEPER_DEMO_BUNDLE_ID"] ?: "com.shopkeeper.demo.garden"
    private val http = HttpExchange(30_000)

    /**
     * One phone: the app's files (`shopkeeper`, which clearing the app's data deletes), the id store (`ids`, kept
     * apart) and Play's own files (`store`). [account] shares the Google account's purchases between phones.
     */
    class Device(val shopkeeper: Shopkeeper, val store: SandboxDeviceStore, val directory: File)

    fun device(
        directory: File = Files.createTempDirectory("android-stack").toFile(),
        account: File? = null,
        retry: RetryPolicy = RetryPolicy(maxAttempts = 3, baseDelaySeconds = 0.2, maxDelaySeconds = 2.0),
        store: ((SandboxDeviceStore) -> DeviceStore)? = null,
        answerKeys: Map<String, String> = emptyMap()
    ): Device {
        val sandbox = SandboxDeviceStore(
            sandboxUrl, packageName, File(directory, "store"), account ?: File(directory, "store")
        )
        val configuration = ShopkeeperConfiguration(
            baseUrl = gatewayUrl, apiKey = publicKey, appVersion = "2.0", storageDirectory = File(directory, "shopkeeper"),
            idStore = FileIdStore(File(directory, "ids")), retryPolicy = retry, answerKeys = answerKeys
        )
        return Device(Shopkeeper(configuration, store?.invoke(sandbox) ?: sandbox), sandbox, directory)
    }

    /** The API as an app on another platform would use it. */
    fun api() = ShopkeeperApi(
        ShopkeeperConfiguration(gatewayUrl, publicKey, "2.0", Files.createTempDirectory("android-stack-api").toFile())
    )

    /**
     * The demo app's answer signing keys (`GET /v1/admin/answer-signing`) as an app trusts them, by key id; creates the
     * app's first key (which signs at once) when it has no active one.
     */
    fun trustedAnswerKeys(): Map<String, String> {
        fun keys() = gateway("GET", "/v1/admin/answer-signing", bearer = secretKey)?.list("keys") { it } ?: emptyList()
        if (keys().none { it.boolean("active") }) gateway("POST", "/v1/admin/answer-signing/keys", bearer = secretKey)
        return keys().associate { it.string("key_id") to it.string("public_key") }
    }

    /** A new product of the demo app, visible to development builds, sold on both stores. */
    fun createProduct(type: ProductType, duration: String? = null): String {
        val id = "android_${type.rawValue}_${UUID.randomUUID().toString().take(8)}"
        val product = jsonOf(
            "product_id" to id, "type" to type.rawValue, "review_state" to "approved", "cleared_for_sale" to true,
            "store_product_ids" to mapOf("app_store" to "$packageName.$id", "play_store" to id), "entitlements" to listOf(id),
            "default_locale" to "en", "localizations" to mapOf("en" to mapOf("name" to id)), "duration" to duration,
            "consumable_quantity" to if (type == ProductType.CONSUMABLE) 5 else null
        )
        call("PUT", "$gatewayUrl/v1/admin/products/$id", product, secretKey)
        return id
    }

    /** Publishes version `1.0.0` of the product's content pack with these files (the admin API's uploads). */
    fun publishContent(productId: String, files: Map<String, ByteArray>) {
        val base = "$gatewayUrl/v1/admin/content/$productId/uploads"
        val upload = call("POST", base, jsonOf("version" to "1.0.0"), secretKey)?.string("upload_id")
            ?: throw IllegalStateException("no upload id")
        for ((path, bytes) in files) {
            send("PUT", "$base/$upload/files?path=${ShopkeeperApi.segment(path)}", "application/octet-stream", bytes, secretKey)
        }
        call("POST", "$base/$upload/publish", null, secretKey)
    }

    /** A gateway call (`/v1/...`) with [bearer] (the public key unless told), which must answer `2xx`. */
    fun gateway(method: String, path: String, body: Map<String, Any?>? = null, bearer: String = publicKey): JsonObject? =
        call(method, gatewayUrl.trimEnd('/') + path, body, bearer)

    /** A sandbox store control (`/sandbox/...`). */
    fun sandbox(method: String, path: String, body: Map<String, Any?>? = null): JsonObject? =
        call(method, sandboxUrl.trimEnd('/') + path, body, null)

    private fun call(method: String, url: String, body: Map<String, Any?>?, bearer: String?): JsonObject? =
        send(method, url, "application/json", body?.let { Json.write(it).toByteArray(Charsets.UTF_8) }, bearer)

    private fun send(method: String, url: String, type: String, body: ByteArray?, bearer: String?): JsonObject? {
        val headers = LinkedHashMap<String, String>()
        if (bearer != null) headers["Authorization"] = "Bearer $bearer"
        if (body != null) headers["Content-Type"] = type
        val answer = http.send(method, url, headers, body)
        check(answer.status in 200..299) { "$method $url answered ${answer.status}: ${answer.text.take(500)}" }
        return if (answer.text.isBlank()) null else JsonObject.parse(answer.text)
    }

    companion object {
        /** The stack `SHOPKEEPER_ANDROID_STACK_ENV` names; these tests only run against one. */
        val current: Stack by lazy {
            val path = System.getenv("SHOPKEEPER_ANDROID_STACK_ENV")
                ?: throw IllegalStateException("no stack: run Clients/ShopkeeperAndroid/test-with-stack")
            val values = HashMap<String, String>()
            for (line in File(path).readLines()) {
                val at = line.indexOf('=')
                if (at > 0) values[line.substring(0, at)] = line.substring(at + 1)
            }
            Stack(values)
        }
    }
}
