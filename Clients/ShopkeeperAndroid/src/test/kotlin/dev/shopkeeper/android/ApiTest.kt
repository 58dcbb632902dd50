package dev.shopkeeper.android

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperApi
import dev.shopkeeper.android.core.ShopkeeperConfiguration
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.PlayPurchaseKind
import dev.shopkeeper.android.models.PurchaseProof
import dev.shopkeeper.android.models.StorePlatform
import java.net.ServerSocket
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** The typed client against a real local HTTP server: headers, the ETag cache, retries and problem documents. */
class ApiTest : WithLocalServer() {
    private fun api(policy: RetryPolicy = RetryPolicy(maxAttempts = 3, baseDelaySeconds = 0.0, maxDelaySeconds = 0.0)) =
        ShopkeeperApi(configuration(server, storage, policy))

    private inline fun expectServerError(code: String, block: () -> Unit): ShopkeeperException.Server {
        try {
            block()
        } catch (error: ShopkeeperException.Server) {
            assertEquals(code, error.code)
            return error
        }
        fail("no $code")
        throw AssertionError()
    }

    @Test
    fun sendsTheKeyAndRevalidatesCustomerInfoByETag() = runBlocking<Unit> {
        server.handler = { request ->
            if (request.header("If-None-Match") == "\"v1\"") Reply(304, headers = mapOf("ETag" to "\"v1\""))
            else Reply.json(200, Answers.customer("user 1/ä", listOf("pro")), mapOf("ETag" to "\"v1\""))
        }
        val api = api()
        val first = api.customerInfo("user 1/ä")
        val second = api.customerInfo("user 1/ä")
        assertEquals(first, second)
        assertEquals(setOf("pro"), second.activeEntitlements)
        assertEquals(1, api.notModifiedCount)
        val requests = server.requests
        assertEquals(2, requests.size)
        assertEquals("/v1/customers/user%201%2F%C3%A4", requests[0].path)
        assertEquals("Bearer pk_test_android", requests[0].header("Authorization"))
        assertEquals("application/json", requests[0].header("Accept"))
        assertNull(requests[0].header("If-None-Match"))
        assertEquals("\"v1\"", requests[1].header("If-None-Match"))
        api.clearCache()
        api.customerInfo("user 1/ä")
        assertNull(server.requests[2].header("If-None-Match"))
    }

    @Test
    fun asksForTheCatalogOfThisBuild() = runBlocking<Unit> {
        server.handler = { Reply.json(200, Answers.catalog(Answers.item("pro", "non_consumable"))) }
        val catalog = api().catalog(StorePlatform.PLAY_STORE, "1.2.0", BuildKind.DEVELOPMENT, variant = "", locale = "de-AT")
        assertEquals("play_pro", catalog.product("pro")?.storeProductId)
        assertEquals("platform=play_store&app_version=1.2.0&build=development&locale=de-AT", server.requests[0].query)
    }

    @Test
    fun retriesServerFailuresWaitingRetryAfter() = runBlocking<Unit> {
        val calls = AtomicInteger()
        server.handler = {
            when (calls.incrementAndGet()) {
                1 -> Reply.problem(503, "store_unavailable", mapOf("Retry-After" to "0"))
                2 -> Reply(502, "<html>bad gateway</html>")
                else -> Reply.json(200, Answers.customer("a"))
            }
        }
        assertEquals("a", api().customerInfo("a").appUserId)
        assertEquals(3, server.requests.size)
    }

    @Test
    fun retriesTimeoutsAndTooManyRequestsThenGivesUpWithTheLastProblem() = runBlocking<Unit> {
        val statuses = listOf(408 to "request_timeout", 429 to "rate_limited", 503 to "store_unavailable")
        val calls = AtomicInteger()
        server.handler = { val (status, code) = statuses[calls.getAndIncrement() % 3]; Reply.problem(status, code) }
        val error = expectServerError("store_unavailable") { api().customerInfo("a") }
        assertEquals(503, error.status)
        assertEquals("req_test", error.problem.requestId)
        assertEquals(3, server.requests.size)
    }

    @Test
    fun neverRetriesAnotherClientError() = runBlocking<Unit> {
        for ((status, code) in listOf(400 to "malformed_json", 404 to "customer_not_found", 409 to "insufficient_balance", 422 to "invalid_purchase_token")) {
            server.requests.clear()
            server.handler = { Reply.problem(status, code) }
            val error = expectServerError(code) { api().customerInfo("a") }
            assertEquals(status, error.status)
            assertEquals(1, server.requests.size)
        }
    }

    @Test
    fun anAnswerWithoutAProblemDocumentGetsOneFromItsStatus() = runBlocking<Unit> {
        server.handler = { Reply(418, "short and stout") }
        val error = expectServerError("http_418") { api().trial("a") }
        assertEquals("short and stout", error.problem.detail)
    }

    @Test
    fun anAuthenticationChallengeToAPostIsAnAnswerNotABrokenConnection() = runBlocking<Unit> {
        server.handler = { Reply(401, "", mapOf("WWW-Authenticate" to "Bearer realm=\"proxy\"")) }
        val proof = PurchaseProof.PlayPurchase("tok", "play_pro", PlayPurchaseKind.PRODUCT)
        val error = expectServerError("http_401") { api().submitPurchase(proof, "a", null, null) }
        assertEquals(401, error.status)
        assertEquals(1, server.requests.size)
    }

    @Test
    fun aBrokenConnectionIsATransportFailureTriedAgain() = runBlocking<Unit> {
        val port = ServerSocket(0).use { it.localPort }
        val api = ShopkeeperApi(
            ShopkeeperConfiguration(
                "http://127.0.0.1:$port", "pk_test", "1.0", storage,
                retryPolicy = RetryPolicy(maxAttempts = 2, baseDelaySeconds = 0.0)
            )
        )
        try {
            api.customerInfo("a")
            fail("answered without a server")
        } catch (error: ShopkeeperException.Transport) {
            assertTrue(error.isRetryable)
        }
    }

    @Test
    fun sendsThePlayTokenAsThePurchaseRequestSaysAndTheConsumeKey() = runBlocking<Unit> {
        server.handler = { request ->
            when (request.path) {
                "/v1/purchases" -> Reply.json(200, Answers.purchase(request.json(), "pro"))
                else -> Reply.json(
                    200,
                    mapOf("product_id" to "coins", "consumed" to 2, "balance" to 3, "customer" to Answers.customer("a"))
                )
            }
        }
        val api = api()
        val proof = PurchaseProof.PlayPurchase("tok", "play_pro", PlayPurchaseKind.SUBSCRIPTION)
        val response = api.submitPurchase(proof, "a", "device", "1.2.0")
        assertEquals("granted", response.outcomes[0].outcome)
        val body = server.requests[0].json()
        assertEquals(
            mapOf(
                "purchase_token" to "tok", "product_id" to "play_pro", "purchase_kind" to "subscription",
                "app_user_id" to "a", "device_id" to "device", "app_version" to "1.2.0"
            ),
            body
        )
        assertEquals("application/json", server.requests[0].header("Content-Type"))
        val spent = api.consume("a", "coins", 2, "key-1")
        assertEquals(3, spent.balance)
        assertEquals("/v1/customers/a/consumables/coins/consume", server.requests[1].path)
        assertEquals("key-1", server.requests[1].header("Idempotency-Key"))
        assertEquals(mapOf("quantity" to 2L), server.requests[1].json())
    }

    @Test
    fun sendsTheCustomerTokenAndTurnsAFailingCallbackIntoAProblem() = runBlocking<Unit> {
        server.handler = { Reply.json(200, Answers.customer("a")) }
        ShopkeeperApi(configuration(server, storage, customerToken = { id -> "token-for-$id" })).customerInfo("a")
        assertEquals("token-for-a", server.requests[0].header("Shopkeeper-Customer-Token"))
        ShopkeeperApi(configuration(server, storage, customerToken = { null })).customerInfo("a")
        assertNull(server.requests[1].header("Shopkeeper-Customer-Token"))
        val failing = ShopkeeperApi(configuration(server, storage, customerToken = { throw IllegalStateException("offline") }))
        val error = expectServerError("customer_token_unavailable") { failing.customerInfo("a") }
        assertEquals(401, error.status)
        assertEquals(2, server.requests.size)
    }

    @Test
    fun aConfigurationIsCheckedAtStart() {
        val bad = listOf<() -> Unit>(
            { ShopkeeperConfiguration("not a url", "pk_x", "1.0", storage) },
            { ShopkeeperConfiguration("ftp://shop.example.com", "pk_x", "1.0", storage) },
            { ShopkeeperConfiguration("https://shop.example.com", "sk_live_secret", "1.0", storage) },
            { ShopkeeperConfiguration("https://shop.example.com", "pk_x", "1.0-beta", storage) },
            { ShopkeeperConfiguration("https://shop.example.com", "pk_x", "1.0", storage, requestTimeoutMillis = 0) }
        )
        for (make in bad) {
            try {
                make()
                fail("accepted a bad configuration")
            } catch (error: IllegalArgumentException) {
            }
        }
    }
}
