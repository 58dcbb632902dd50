package dev.shopkeeper.android

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.CustomerInfo
import dev.shopkeeper.android.purchases.Shopkeeper
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * Redemption codes (`POST /v1/customers/{id}/redeem`) and offerings (`GET /v1/offerings`) against a real local HTTP
 * server: what is sent, the refusals' codes, the listeners, the offerings' query and their `ETag` cache.
 */
class RedemptionAndOfferingsTest : WithLocalServer() {
    private fun shopkeeper() = Shopkeeper(
        configuration(server, storage, RetryPolicy(maxAttempts = 3, baseDelaySeconds = 0.0, maxDelaySeconds = 0.0)),
        MemoryDeviceStore()
    )

    @Test
    fun aCodeIsSentForTheCurrentUserAndTheAnswerReachesTheListeners() = runBlocking<Unit> {
        server.handler = { request -> Reply.json(200, Answers.customer(request.path.split("/")[3], listOf("web_pro"))) }
        val shopkeeper = shopkeeper()
        val heard = CopyOnWriteArrayList<CustomerInfo>()
        shopkeeper.addCustomerInfoListener { heard.add(it) }
        val info = shopkeeper.redeem("k7qxm 3hwpa-9rztd c4nvb")
        assertEquals(setOf("web_pro"), info.activeEntitlements)
        assertEquals(listOf(info), heard.toList())
        val request = server.requests.single()
        assertEquals("POST", request.method)
        assertEquals("/v1/customers/${shopkeeper.appUserId}/redeem", request.path)
        assertEquals("application/json", request.header("Content-Type"))
        // As typed: the server reads case, spaces and hyphens away.
        assertEquals(mapOf("code" to "k7qxm 3hwpa-9rztd c4nvb"), request.json())
    }

    /** Each refusal carries its stable code and is never retried (nor is the expired code's `410`). */
    @Test
    fun refusalsHaveTheirCodesAndAreNotRetried() = runBlocking<Unit> {
        val refusals = listOf(
            404 to "redemption_code_not_found", 409 to "redemption_code_used", 410 to "redemption_code_expired",
            409 to "nothing_to_redeem"
        )
        val shopkeeper = shopkeeper()
        for ((status, code) in refusals) {
            server.requests.clear()
            server.handler = { Reply.problem(status, code) }
            try {
                shopkeeper.redeem("AAAAA-AAAAA-AAAAA-AAAAA")
                fail("no $code")
            } catch (error: ShopkeeperException.Server) {
                assertEquals(code, error.code)
                assertEquals(status, error.status)
                assertFalse(error.isRetryable)
            }
            assertEquals(1, server.requests.size)
        }
    }

    @Test
    fun aServerFailureIsRetriedAndThenRedeemed() = runBlocking<Unit> {
        var calls = 0
        server.handler = { request ->
            calls++
            if (calls == 1) Reply.problem(503, "database_unavailable", mapOf("Retry-After" to "0"))
            else Reply.json(200, Answers.customer(request.path.split("/")[3], listOf("web_pro")))
        }
        assertTrue("web_pro" in shopkeeper().redeem("K7QXM-3HWPA-9RZTD-C4NVB").activeEntitlements)
        assertEquals(2, server.requests.size)
        assertEquals(server.requests[0].body, server.requests[1].body)
    }

    @Test
    fun offeringsAreAskedForThisBuildAndCustomerAndRevalidatedByETag() = runBlocking<Unit> {
        server.handler = { request ->
            if (request.header("If-None-Match") == "\"o1\"") Reply(304, headers = mapOf("ETag" to "\"o1\""))
            else Reply.json(200, offerings(), mapOf("ETag" to "\"o1\""))
        }
        val shopkeeper = shopkeeper()
        val first = shopkeeper.offerings(country = "DE")
        val second = shopkeeper.offerings(country = "DE")
        assertEquals(first, second)
        assertEquals(1, shopkeeper.api.notModifiedCount)
        assertEquals("germany", first.current?.offeringId)
        assertEquals("german_storefronts", first.ruleId)
        val annual = first.current?.packageWithId("\$annual")
        assertEquals("play_service_year", annual?.product?.storeProductId)
        assertEquals("de", first.current?.paywall?.locale)
        assertEquals(mapOf("accent" to "#2E7D32"), first.current?.paywall?.colors)
        assertNull(first.offering("standard")?.paywall)
        val request = server.requests[0]
        assertEquals("/v1/offerings", request.path)
        assertEquals(
            "app_user_id=${shopkeeper.appUserId}&platform=play_store&app_version=1.2.0&build=development&locale=en-US&country=DE",
            request.query
        )
        assertNull(request.header("If-None-Match"))
        assertEquals("\"o1\"", server.requests[1].header("If-None-Match"))
        // Another country is another answer, cached apart.
        shopkeeper.offerings()
        assertNull(server.requests[2].header("If-None-Match"))
        assertFalse(server.requests[2].query.orEmpty().contains("country"))
    }

    @Test
    fun anAppWithoutOfferingsHasNoCurrentOne() = runBlocking<Unit> {
        server.handler = { Reply.json(200, jsonOf("offerings" to emptyList<Any>())) }
        val view = shopkeeper().offerings()
        assertNull(view.current)
        assertTrue(view.offerings.isEmpty())
    }

    @Test
    fun aPaywallWithoutItsRequiredFieldsDoesNotDecode() = runBlocking<Unit> {
        val broken = offerings().toMutableMap()
        broken["offerings"] = listOf(jsonOf("offering_id" to "x", "packages" to emptyList<Any>(), "paywall" to jsonOf("layout" to "hero")))
        server.handler = { Reply.json(200, broken) }
        try {
            shopkeeper().offerings()
            fail("decoded")
        } catch (error: ShopkeeperException.Decoding) {
            assertTrue(error.message.orEmpty(), error.message.orEmpty().contains("colors"))
        }
    }

    private fun offerings() = jsonOf(
        "current_offering_id" to "germany", "rule_id" to "german_storefronts",
        "offerings" to listOf(
            jsonOf(
                "offering_id" to "standard", "description" to "The garden club",
                "packages" to listOf(jsonOf("package_id" to "\$monthly", "product" to Answers.item("garden_club", "auto_renewable")))
            ),
            jsonOf(
                "offering_id" to "germany",
                "packages" to listOf(jsonOf("package_id" to "\$annual", "product" to Answers.item("service_year", "auto_renewable"))),
                "paywall" to jsonOf(
                    "layout" to "two_column", "colors" to mapOf("accent" to "#2E7D32"),
                    "image_urls" to mapOf("header" to "https://shopkeeper.dev/demo/garden-club.png"), "locale" to "de",
                    "title" to "Ein Jahr im Garten", "features" to listOf("Ein Jahr Service"), "call_to_action" to "Jetzt wählen"
                )
            )
        )
    )
}
