package dev.shopkeeper.android

import com.sun.net.httpserver.HttpServer
import dev.shopkeeper.android.core.Json
import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.StorePlatform
import dev.shopkeeper.android.products.StoreProduct
import dev.shopkeeper.android.products.StoreProductQuery
import dev.shopkeeper.android.purchases.DevicePurchaseRequest
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.DeviceTransaction
import java.io.File
import java.net.InetSocketAddress
import java.nio.file.Files
import java.util.TreeMap
import java.util.concurrent.CopyOnWriteArrayList
import org.junit.After

/** A request the test server received. */
class Received(
    val method: String,
    val path: String,
    val query: String?,
    val headers: Map<String, String>,
    val body: String
) {
    fun header(name: String): String? = headers[name]

    /** The body as a JSON object. */
    @Suppress("UNCHECKED_CAST")
    fun json(): Map<String, Any?> = Json.parse(body) as Map<String, Any?>
}

/** What the test server answers. */
class Reply(val status: Int, val body: String = "", val headers: Map<String, String> = emptyMap(), val bytes: ByteArray? = null) {
    companion object {
        fun json(status: Int, value: Any?, headers: Map<String, String> = emptyMap()) =
            Reply(status, Json.write(value), mapOf("Content-Type" to "application/json") + headers)

        /** A problem document, as the gateway answers errors. */
        fun problem(status: Int, code: String, headers: Map<String, String> = emptyMap()) = Reply(
            status,
            Json.write(
                jsonOf(
                    "type" to "https://shopkeeper.dev/problems/$code", "title" to "HTTP $status", "status" to status,
                    "detail" to "test answer $code", "code" to code, "request_id" to "req_test"
                )
            ),
            mapOf("Content-Type" to "application/problem+json") + headers
        )
    }
}

/** A real HTTP server of the JDK on a free local port, answering each request with [handler]. */
class TestServer : AutoCloseable {
    private val server: HttpServer = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
    val requests = CopyOnWriteArrayList<Received>()

    @Volatile
    var handler: (Received) -> Reply = { Reply.problem(404, "not_found") }

    init {
        server.createContext("/") { exchange ->
            val headers = TreeMap<String, String>(String.CASE_INSENSITIVE_ORDER)
            for ((name, values) in exchange.requestHeaders) if (values.isNotEmpty()) headers[name] = values[0]
            val body = exchange.requestBody.use { String(it.readBytes(), Charsets.UTF_8) }
            val received = Received(exchange.requestMethod, exchange.requestURI.rawPath, exchange.requestURI.rawQuery, headers, body)
            requests.add(received)
            val reply = try {
                handler(received)
            } catch (error: Throwable) {
                Reply(500, "test handler failed: $error")
            }
            for ((name, value) in reply.headers) exchange.responseHeaders.add(name, value)
            val bytes = reply.bytes ?: reply.body.toByteArray(Charsets.UTF_8)
            exchange.sendResponseHeaders(reply.status, if (bytes.isEmpty()) -1 else bytes.size.toLong())
            if (bytes.isNotEmpty()) exchange.responseBody.use { it.write(bytes) }
            exchange.close()
        }
        server.start()
    }

    val url: String
        get() = "http://127.0.0.1:${server.address.port}"

    /** The requests to a path. */
    fun to(path: String): List<Received> = requests.filter { it.path == path }

    override fun close() = server.stop(0)
}

/** A test class with a local [server] and a [storage] directory, closed and deleted after each test. */
abstract class WithLocalServer {
    protected val server = TestServer()
    protected val storage: File = temporaryDirectory()

    @After
    fun closeServerAndDeleteStorage() {
        server.close()
        storage.deleteRecursively()
    }
}

/** A temporary directory, deleted by [delete]. */
fun temporaryDirectory(): File = Files.createTempDirectory("shopkeeper-android-test").toFile()

/** A configuration for [server] with retries that do not wait. */
fun configuration(
    server: TestServer,
    storage: File,
    retryPolicy: RetryPolicy = RetryPolicy(maxAttempts = 3, baseDelaySeconds = 0.0, maxDelaySeconds = 0.0),
    customerToken: (suspend (String) -> String?)? = null
) = ShopkeeperConfiguration(
    baseUrl = server.url + "/", apiKey = "pk_test_android", appVersion = "1.2.0", storageDirectory = storage,
    locale = "en-US", retryPolicy = retryPolicy, customerToken = customerToken
)

/**
 * A device's Play store in memory: what Play keeps across app restarts (unfinished purchases, the account's purchases)
 * lives in this object, so two `Shopkeeper`s over one instance are one device before and after a crash.
 */
class MemoryDeviceStore : DeviceStore {
    override val platform = StorePlatform.PLAY_STORE
    val unfinished = CopyOnWriteArrayList<DeviceTransaction>()
    val owned = CopyOnWriteArrayList<DeviceTransaction>()
    val finished = CopyOnWriteArrayList<DeviceTransaction>()
    val requests = CopyOnWriteArrayList<DevicePurchaseRequest>()

    /** When true, the next purchase is `PENDING` at Play: nothing returned, delivered later by [complete]. */
    @Volatile
    var nextIsPending = false
    private var pending: DeviceTransaction? = null
    private var listener: ((DeviceTransaction) -> Unit)? = null
    private var orders = 0

    override suspend fun buildKind() = BuildKind.DEVELOPMENT

    override suspend fun purchase(request: DevicePurchaseRequest): DeviceTransaction? {
        requests.add(request)
        val kind = if (request.productType.rawValue == "auto_renewable") PlayPurchaseKind.SUBSCRIPTION else PlayPurchaseKind.PRODUCT
        orders++
        val transaction = DeviceTransaction(
            "GPA.0000-$orders", request.storeProductId,
            PurchaseProof.PlayPurchase("token-$orders", request.storeProductId, kind), request.appAccountToken,
            request.productType
        )
        if (nextIsPending) {
            nextIsPending = false
            pending = transaction
            return null
        }
        unfinished.add(transaction)
        owned.add(transaction)
        return transaction
    }

    /** The pending purchase completes: Play tells the listener. */
    fun complete() {
        val transaction = pending ?: throw IllegalStateException("nothing pending")
        pending = null
        unfinished.add(transaction)
        owned.add(transaction)
        listener?.invoke(transaction)
    }

    override suspend fun unfinishedTransactions(): List<DeviceTransaction> = unfinished.toList()

    override suspend fun currentEntitlements(): List<DeviceTransaction> = owned.toList()

    override suspend fun finish(transaction: DeviceTransaction) {
        unfinished.removeIf { it.id == transaction.id }
        finished.add(transaction)
    }

    override fun setTransactionListener(listener: ((DeviceTransaction) -> Unit)?) {
        this.listener = listener
    }

    /** What Play's product details say; `null`: the store cannot list products (as the default says). */
    @Volatile
    var storeProducts: List<StoreProduct>? = null
    val productQueries = CopyOnWriteArrayList<List<StoreProductQuery>>()

    override suspend fun products(queries: List<StoreProductQuery>): List<StoreProduct> {
        productQueries.add(queries)
        val known = storeProducts ?: return super.products(queries)
        return known.filter { product -> queries.any { it.storeProductId == product.id } }
    }
}

/** JSON of the server's answers, as the document shapes them. */
object Answers {
    const val DATE = "2026-03-01T12:00:00Z"

    fun customer(id: String, entitlements: List<String> = emptyList(), balances: Map<String, Int> = emptyMap()) = jsonOf(
        "app_user_id" to id, "aliases" to listOf(id), "first_seen" to DATE, "last_seen" to DATE, "refund_count" to 0,
        "entitlements" to entitlements.associate {
            it to jsonOf(
                "active" to true, "product_id" to it, "purchase_date" to DATE, "store" to "play_store",
                "environment" to "sandbox", "source" to "purchase"
            )
        },
        "subscriptions" to emptyList<Any>(), "trial" to jsonOf("state" to "none"),
        "non_subscription_purchases" to emptyList<Any>(), "consumable_balances" to balances,
        "product_grants" to emptyList<Any>()
    )

    fun item(productId: String, type: String, availability: String = "purchasable") = jsonOf(
        "product_id" to productId, "type" to type, "availability" to availability,
        "store_product_id" to if (availability == "purchasable") "play_$productId" else null,
        "entitlements" to listOf(productId), "sort_order" to 0, "locale" to "en-US", "name" to productId,
        "screenshot_urls" to emptyList<Any>(), "duration" to if (type == "auto_renewable") "P1M" else null
    )

    fun catalog(vararg items: Map<String, Any?>) = jsonOf(
        "platform" to "play_store", "build" to "development", "app_version" to "1.2.0", "locale" to "en-US",
        "products" to items.toList()
    )

    /** The answer to a purchase of [body]'s token: granted to its `app_user_id`. */
    fun purchase(body: Map<String, Any?>, entitlement: String, outcome: String = "granted") = jsonOf(
        "transactions" to listOf(
            jsonOf(
                "store" to "play_store", "environment" to "sandbox", "transaction_id" to "order-${body["purchase_token"]}",
                "original_transaction_id" to "order-${body["purchase_token"]}", "store_product_id" to body["product_id"],
                "quantity" to 1, "purchase_date" to DATE, "ownership_type" to "purchased"
            )
        ),
        "outcomes" to listOf(
            jsonOf(
                "store" to "play_store", "transaction_id" to "order-${body["purchase_token"]}",
                "product_id" to entitlement, "outcome" to outcome
            )
        ),
        "customer" to customer(body["app_user_id"] as String, listOf(entitlement))
    )
}
