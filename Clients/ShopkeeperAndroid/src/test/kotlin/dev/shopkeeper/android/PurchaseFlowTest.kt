package dev.shopkeeper.android

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.purchases.PurchaseOutcome
import dev.shopkeeper.android.purchases.Shopkeeper
import dev.shopkeeper.android.support.AppAccountToken
import java.io.File
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.runBlocking
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * The purchase flow against a real local HTTP server standing in for the gateway, and a device store in memory that
 * keeps what Play keeps: a purchase is kept on disk until the server answers 200 or a 4xx that cannot change.
 */
class PurchaseFlowTest {
    private val server = TestServer()
    private val storage: File = temporaryDirectory()
    private val store = MemoryDeviceStore()
    /** The app's scope: where a started client's listener and retries run; cancelled after each test. */
    private val job = Job()
    private val scope = CoroutineScope(Dispatchers.Default + job)

    /** What `POST /v1/purchases` answers next: a status and code, or `null` for a grant. */
    private val purchaseFailures = LinkedBlockingQueue<Pair<Int, String>>()
    private val consumeReplies = LinkedBlockingQueue<Reply>()

    init {
        server.handler = { request ->
            when {
                request.path == "/v1/catalog" -> Reply.json(
                    200,
                    Answers.catalog(
                        Answers.item("pro", "non_consumable"), Answers.item("coins", "consumable"),
                        Answers.item("monthly", "auto_renewable"), Answers.item("gift", "non_consumable", "free")
                    )
                )
                request.path == "/v1/purchases" -> {
                    val failure = purchaseFailures.poll()
                    if (failure != null) Reply.problem(failure.first, failure.second, mapOf("Retry-After" to "0"))
                    else Reply.json(200, Answers.purchase(request.json(), (request.json()["product_id"] as String).removePrefix("play_")))
                }
                request.path.endsWith("/consume") -> consumeReplies.poll() ?: Reply.problem(500, "no_reply_scripted")
                request.path.endsWith("/aliases") -> Reply.json(200, Answers.customer(request.path.split("/")[3]))
                request.path.endsWith("/restore") -> Reply.json(
                    200,
                    mapOf(
                        "transactions" to emptyList<Any>(), "rejected" to emptyList<Any>(),
                        "outcomes" to listOf(mapOf("store" to "play_store", "transaction_id" to "GPA.0000-1", "product_id" to "pro", "outcome" to "already_applied")),
                        "customer" to Answers.customer(request.path.split("/")[3], listOf("pro"))
                    )
                )
                request.path.startsWith("/v1/customers/") -> Reply.json(200, Answers.customer(request.path.split("/")[3]))
                else -> Reply.problem(404, "not_found")
            }
        }
    }

    @After
    fun tearDown() {
        job.cancel()
        server.close()
        storage.deleteRecursively()
    }

    private fun shopkeeper(policy: RetryPolicy = RetryPolicy.NONE) = Shopkeeper(configuration(server, storage, policy), store)

    private val purchases: List<Received>
        get() = server.to("/v1/purchases")

    @Test
    fun aPurchaseIsSentWithTheBuyersTokenGrantedAndThenFinished() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        val seen = CopyOnWriteArrayList<CustomerInfo>()
        shopkeeper.addCustomerInfoListener { seen.add(it) }
        val outcome = shopkeeper.purchase("pro")
        assertTrue(outcome is PurchaseOutcome.Delivered)
        assertEquals(AppAccountToken.uuid(shopkeeper.appUserId), store.requests[0].appAccountToken)
        assertEquals(AppAccountToken.obfuscatedAccountId(shopkeeper.appUserId), store.requests[0].obfuscatedAccountId)
        val body = purchases.single().json()
        assertEquals("token-1", body["purchase_token"])
        assertEquals("play_pro", body["product_id"])
        assertEquals("product", body["purchase_kind"])
        assertEquals(shopkeeper.appUserId, body["app_user_id"])
        assertEquals(shopkeeper.deviceId, body["device_id"])
        assertEquals(listOf("GPA.0000-1"), store.finished.map { it.id })
        assertTrue(shopkeeper.pendingPurchases.isEmpty())
        assertEquals(setOf("pro"), seen.single().activeEntitlements)
    }

    @Test
    fun aSubscriptionIsSentAsOne() = runBlocking<Unit> {
        shopkeeper().purchase("monthly")
        assertEquals("subscription", purchases.single().json()["purchase_kind"])
        assertEquals("P1M", store.requests.single().period)
    }

    @Test
    fun aProductThisBuildCannotBuyIsNotSentToTheStore() = runBlocking<Unit> {
        for (id in listOf("gift", "missing")) {
            try {
                shopkeeper().purchase(id)
                fail("bought $id")
            } catch (error: ShopkeeperException.ProductUnavailable) {
                assertEquals(id, error.productId)
            }
        }
        assertTrue(store.requests.isEmpty())
    }

    @Test
    fun aServerFailureKeepsThePurchaseUntilItIsTakenEvenAcrossACrash() = runBlocking<Unit> {
        purchaseFailures.add(503 to "store_unavailable")
        val first = shopkeeper()
        val outcome = first.purchase("coins")
        assertTrue(outcome is PurchaseOutcome.Pending)
        assertEquals("store_unavailable", (outcome as PurchaseOutcome.Pending).error.code)
        assertEquals(1, first.pendingPurchases.size)
        assertEquals("store_unavailable", first.pendingPurchases[0].lastError)
        assertTrue(store.finished.isEmpty())
        // The app dies; a new instance over the same files and store sends it at start.
        val second = shopkeeper()
        assertEquals(first.pendingPurchases, second.pendingPurchases)
        second.start(scope)
        second.stop()
        assertTrue(second.pendingPurchases.isEmpty())
        assertEquals(listOf("GPA.0000-1"), store.finished.map { it.id })
        assertEquals(2, purchases.size)
        assertEquals(purchases[0].body, purchases[1].body)
    }

    @Test
    fun aCrashBetweenBuyingAndSendingIsFoundAtTheNextStart() = runBlocking<Unit> {
        val buyer = shopkeeper()
        // Play bought it; the app died before it kept or sent anything.
        store.purchase(dev.shopkeeper.android.purchases.DevicePurchaseRequest("play_pro", dev.shopkeeper.android.models.ProductType.NON_CONSUMABLE, appAccountToken = AppAccountToken.uuid(buyer.appUserId)))
        assertTrue(purchases.isEmpty())
        val restarted = shopkeeper()
        restarted.start(scope)
        restarted.stop()
        assertEquals(buyer.appUserId, purchases.single().json()["app_user_id"])
        assertTrue(store.unfinished.isEmpty())
    }

    @Test
    fun aForgedTokenIsRefusedFinishedAndNotSentAgain() = runBlocking<Unit> {
        purchaseFailures.add(422 to "invalid_purchase_token")
        val shopkeeper = shopkeeper()
        assertEquals(PurchaseOutcome.Refused("invalid_purchase_token"), shopkeeper.purchase("pro"))
        assertEquals(listOf("GPA.0000-1"), store.finished.map { it.id })
        assertEquals("invalid_purchase_token", shopkeeper.refusedTransactions.single().code)
        assertTrue(shopkeeper.retryPendingPurchases().isEmpty())
        assertEquals(1, purchases.size)
    }

    @Test
    fun aRefusalAboutTheAppsSetupKeepsThePurchase() = runBlocking<Unit> {
        purchaseFailures.add(422 to "store_not_configured")
        val shopkeeper = shopkeeper()
        assertTrue(shopkeeper.purchase("pro") is PurchaseOutcome.Pending)
        assertTrue(store.finished.isEmpty())
        val outcomes = shopkeeper.retryPendingPurchases()
        assertTrue(outcomes["GPA.0000-1"] is PurchaseOutcome.Delivered)
    }

    @Test
    fun aPendingPurchaseIsSentOnlyOnceItCompletes() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        shopkeeper.start(scope)
        store.nextIsPending = true
        try {
            shopkeeper.purchase("pro")
            fail("a pending purchase completed")
        } catch (error: ShopkeeperException.PurchaseNotCompleted) {
        }
        assertTrue(purchases.isEmpty())
        val seen = LinkedBlockingQueue<CustomerInfo>()
        shopkeeper.addCustomerInfoListener { seen.add(it) }
        store.complete()
        val info = seen.poll(30, TimeUnit.SECONDS)
        assertNotNull("the completed purchase was not delivered", info)
        assertEquals(setOf("pro"), info.activeEntitlements)
        assertEquals(1, purchases.size)
        shopkeeper.stop()
    }

    @Test
    fun aSpendKeepsItsKeyUntilAnswered() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        consumeReplies.add(Reply.problem(503, "database_unavailable"))
        try {
            shopkeeper.consume("coins", 2)
            fail("spent without an answer")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("database_unavailable", error.code)
        }
        assertEquals(1, shopkeeper.pendingConsumes.size)
        // A restart, then the same spend: the kept key goes again, not a second spend.
        val restarted = shopkeeper()
        consumeReplies.add(Reply.json(200, mapOf("product_id" to "coins", "consumed" to 2, "balance" to 8, "customer" to Answers.customer(restarted.appUserId))))
        assertEquals(8, restarted.consume("coins", 2).balance)
        val keys = server.requests.filter { it.path.endsWith("/consume") }.map { it.header("Idempotency-Key") }
        assertEquals(2, keys.size)
        assertEquals(keys[0], keys[1])
        assertTrue(restarted.pendingConsumes.isEmpty())
        // A new spend gets a new key; a verdict ends it.
        consumeReplies.add(Reply.problem(409, "insufficient_balance"))
        try {
            restarted.consume("coins", 2)
            fail("spent more than the balance")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("insufficient_balance", error.code)
        }
        assertNotEquals(keys[0], server.requests.last().header("Idempotency-Key"))
        assertTrue(restarted.pendingConsumes.isEmpty())
    }

    @Test
    fun loggingInLinksTheAnonymousIdAndLoggingOutMakesANewOne() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        val anonymous = shopkeeper.appUserId
        assertTrue(anonymous.startsWith("anon_"))
        assertEquals("alice", shopkeeper.logIn("alice").appUserId)
        val link = server.requests.single { it.path.endsWith("/aliases") }
        assertEquals("/v1/customers/$anonymous/aliases", link.path)
        assertEquals(mapOf("alias" to "alice"), link.json())
        assertEquals("alice", shopkeeper.appUserId)
        // From a logged-in user to another: no link.
        shopkeeper.logIn("bob")
        assertEquals(1, server.requests.count { it.path.endsWith("/aliases") })
        shopkeeper.logOut()
        val next = shopkeeper.appUserId
        assertTrue(next.startsWith("anon_"))
        assertNotEquals(anonymous, next)
        // The new anonymous id is what the next start finds (the id store kept it).
        val reopened = shopkeeper()
        assertEquals(next, reopened.appUserId)
        assertEquals(shopkeeper.deviceId, reopened.deviceId)
        assertEquals(next, reopened.configuration.idStore.read()?.anonymousId)
    }

    @Test
    fun aLinkOnlyTheAppsServerMayMakeDoesNotStopLoggingIn() = runBlocking<Unit> {
        val links = server.handler
        server.handler = { request ->
            if (request.path.endsWith("/aliases")) Reply.problem(403, "secret_key_required") else links(request)
        }
        val shopkeeper = shopkeeper()
        assertEquals("carol", shopkeeper.logIn("carol").appUserId)
        server.handler = { request ->
            if (request.path.endsWith("/aliases")) Reply.problem(422, "validation_failed") else links(request)
        }
        shopkeeper.logOut()
        try {
            shopkeeper.logIn("dave")
            fail("logged in past a refused link")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("validation_failed", error.code)
        }
    }

    @Test
    fun aRestoreSendsEveryOwnedTokenAndAnswersTheCustomer() = runBlocking<Unit> {
        val shopkeeper = shopkeeper()
        shopkeeper.purchase("pro")
        // A new device of the same Play account: another storage, the same store account.
        val phone = Shopkeeper(configuration(server, temporaryDirectory()), store)
        val result = phone.restore()
        assertEquals(setOf("pro"), result.customer.activeEntitlements)
        assertEquals(listOf("GPA.0000-1"), result.restored.map { it.transactionId })
        val body = server.requests.single { it.path.endsWith("/restore") }.json()
        assertEquals(listOf(mapOf("purchase_token" to "token-1", "product_id" to "play_pro", "purchase_kind" to "product")), body["purchase_tokens"])
        assertEquals(phone.deviceId, body["device_id"])
        phone.configuration.storageDirectory.deleteRecursively()
    }
}
