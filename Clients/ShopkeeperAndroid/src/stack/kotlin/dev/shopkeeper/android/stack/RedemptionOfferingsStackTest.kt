package dev.shopkeeper.android.stack

import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.BuildKind
import dev.shopkeeper.android.models.StorePlatform
import java.util.UUID
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * Redemption codes and offerings against the real services (`test-with-stack`): a web visitor's Stripe purchase
 * (through the sandbox's hosted Checkout, paid over HTTP) redeemed by the Android client's customer, once; the demo
 * seed's offerings and their targeting rule for German storefronts.
 */
class RedemptionOfferingsStackTest {
    private val stack = Stack.current

    /** Polls [condition] until it holds (a webhook on its way), for at most [seconds]. */
    private suspend fun eventually(seconds: Long = 30, condition: () -> Boolean): Boolean {
        val deadline = System.nanoTime() + seconds * 1_000_000_000
        while (System.nanoTime() < deadline) {
            if (condition()) return true
            delay(100)
        }
        return condition()
    }

    private fun visitorOwns(visitor: String, entitlement: String): Boolean =
        stack.gateway("GET", "/v1/customers/$visitor")?.objOrNull("entitlements")?.objOrNull(entitlement)
            ?.booleanOrNull("active") == true

    @Test
    fun aWebPurchaseIsRedeemedByTheAppsCustomerOnce() = runBlocking<Unit> {
        // The demo's extra_garden, sold on the web at the sandbox's Stripe price price_demo_extra_garden.
        val product = "extra_garden"
        val visitor = "anon_${UUID.randomUUID()}"
        val session = stack.gateway(
            "POST", "/v1/customers/$visitor/checkout",
            jsonOf(
                "product_id" to product, "success_url" to "http://localhost/thanks?session_id={CHECKOUT_SESSION_ID}",
                "cancel_url" to "http://localhost/shop"
            )
        )?.string("session_id") ?: throw AssertionError("no checkout session")
        val code = stack.gateway("POST", "/v1/customers/$visitor/redemption-codes")?.string("code")
            ?: throw AssertionError("no code")
        val phone = stack.device()
        // Not paid yet: the code stays valid and says so; a code nobody issued is not found.
        for ((attempt, expected) in listOf(code to "nothing_to_redeem", "AAAAA-AAAAA-AAAAA-AAAAA" to "redemption_code_not_found")) {
            try {
                phone.shopkeeper.redeem(attempt)
                fail("no $expected")
            } catch (error: ShopkeeperException.Server) {
                assertEquals(expected, error.code)
            }
        }
        stack.sandbox("POST", "/sandbox/stripe/checkout/$session/pay", jsonOf("card" to "4242424242424242"))
        // Stripe's webhook reaches the gateway: the visitor owns it.
        assertTrue("the web purchase did not show for the visitor", eventually { visitorOwns(visitor, product) })

        val redeemed = phone.shopkeeper.redeem(code)
        assertTrue(redeemed.toString(), redeemed.entitlements[product]?.active == true)
        assertEquals("stripe", redeemed.entitlements[product]?.store?.rawValue)
        assertTrue(phone.shopkeeper.customerInfo().entitlements[product]?.active == true)
        assertFalse("moved, not copied", visitorOwns(visitor, product))
        // Typed again by the same customer (lower case, spaces): the same info, nothing moves.
        val again = phone.shopkeeper.redeem(code.map { Character.toLowerCase(it) }.joinToString("").replace('-', ' '))
        assertTrue(again.entitlements[product]?.active == true)

        val other = stack.device()
        try {
            other.shopkeeper.redeem(code)
            fail("another customer redeemed a used code")
        } catch (error: ShopkeeperException.Server) {
            assertEquals("redemption_code_used", error.code)
            assertEquals(409, error.status)
        }
        assertNull(other.shopkeeper.customerInfo().entitlements[product])
    }

    @Test
    fun theDemoSeedsOfferingsAreReadAndTargetedByCountry() = runBlocking<Unit> {
        val phone = stack.device()
        // Without a country the default offering is current, and no rule chose it.
        val standard = phone.shopkeeper.offerings()
        assertEquals("standard", standard.currentOfferingId)
        assertNull(standard.ruleId)
        assertEquals(setOf("standard", "germany"), standard.offerings.map { it.offeringId }.toSet())
        val packages = standard.current?.packages.orEmpty()
        assertEquals(listOf("\$monthly", "\$lifetime"), packages.map { it.packageId })
        assertEquals("garden_club", packages[0].product.productId)
        assertEquals("garden_club", packages[0].product.storeProductId)
        assertEquals("extra_garden", packages[1].product.productId)
        // The same question again is revalidated: 304.
        val before = phone.shopkeeper.api.notModifiedCount
        assertEquals(standard, phone.shopkeeper.offerings())
        assertEquals(before + 1, phone.shopkeeper.api.notModifiedCount)

        // An Austrian storefront in German: the rule for German storefronts, a yearly plan first, German texts.
        val api = stack.api()
        for (country in listOf("AT", "de")) {
            val germany = api.offerings(
                phone.shopkeeper.appUserId, StorePlatform.PLAY_STORE, "2.0", BuildKind.DEVELOPMENT, locale = "de-AT",
                country = country
            )
            assertEquals("germany", germany.currentOfferingId)
            assertEquals("german_storefronts", germany.ruleId)
            val current = germany.current ?: throw AssertionError("no current offering")
            assertEquals("\$annual", current.packages.first().packageId)
            assertEquals("service_year", current.packages.first().product.storeProductId)
            assertEquals("de", current.paywall?.locale)
            assertEquals("Ein Jahr im Garten", current.paywall?.title)
            assertEquals("de", germany.offering("standard")?.paywall?.locale)
        }
    }
}
