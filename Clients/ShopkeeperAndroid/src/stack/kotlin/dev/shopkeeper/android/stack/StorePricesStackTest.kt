package dev.shopkeeper.android.stack

import dev.shopkeeper.android.products.StoreProduct
import dev.shopkeeper.android.products.StoreProductQuery
import dev.shopkeeper.android.purchases.DeviceStore
import dev.shopkeeper.android.purchases.PlayProductMapping
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayOneTimePrice
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayPricingPhase
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayProductDetails
import dev.shopkeeper.android.purchases.PlayProductMapping.PlaySubscriptionOffer
import dev.shopkeeper.android.purchases.PurchaseOutcome
import dev.shopkeeper.android.purchases.products
import dev.shopkeeper.android.purchases.shopOfferings
import dev.shopkeeper.android.sandbox.SandboxDeviceStore
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Store prices against the real stack: the sandbox Google Play lists no product details, so a phone shows the demo
 * catalog's price hints; a phone whose Play lists the demo's products (the details Play Billing would give, read by
 * [PlayProductMapping]) shows Play's prices, and the garden club's free week only while the real server deems the
 * customer eligible.
 */
class StorePricesStackTest {
    private val stack = Stack.current

    /** The sandbox Google Play, with the product details a real Play would list for the demo's products. */
    private class ListingPlay(private val sandbox: SandboxDeviceStore) : DeviceStore by sandbox {
        private val monthly = PlayPricingPhase("€3.49", 3_490_000, "EUR", "P1M", 0, PlayProductMapping.INFINITE_RECURRING)
        private val listed = listOf(
            PlayProductDetails(
                "extra_garden", "inapp", "Extra Garden", "A second garden",
                PlayOneTimePrice("€3.49", 3_490_000, "EUR"), emptyList()
            ),
            PlayProductDetails(
                "garden_club", "subs", "Garden Club", "Seeds every month", null,
                listOf(
                    PlaySubscriptionOffer("monthly", null, listOf(monthly)),
                    PlaySubscriptionOffer(
                        "monthly", "free-week",
                        listOf(PlayPricingPhase("Free", 0, "EUR", "P1W", 1, PlayProductMapping.FINITE_RECURRING), monthly)
                    )
                )
            )
        ).mapNotNull { PlayProductMapping.storeProduct(it) }

        override suspend fun products(queries: List<StoreProductQuery>): List<StoreProduct> =
            listed.filter { product -> queries.any { it.storeProductId == product.id } }
    }

    @Test
    fun withoutPlaysProductDetailsTheCatalogsPriceHintsAreShown() = runBlocking<Unit> {
        val products = stack.device().shopkeeper.products()
        val garden = products.first { it.id == "extra_garden" }
        assertEquals("$2.99", garden.displayPrice)
        assertTrue(garden.isPriceHint)
        assertEquals("$2.99/month", products.first { it.id == "garden_club" }.displayPrice)
        assertNull("a free product has no price", products.first { it.id == "seeds_sunflower" }.displayPrice)
    }

    @Test
    fun playsPricesAreShownAndTheFreeWeekOnlyWhileTheCustomerMayHaveIt() = runBlocking<Unit> {
        val phone = stack.device(store = { ListingPlay(it) })
        val products = phone.shopkeeper.products()
        val garden = products.first { it.id == "extra_garden" }
        assertEquals("€3.49", garden.displayPrice)
        assertFalse(garden.isPriceHint)
        assertEquals(BigDecimal("3.49"), garden.storeProduct?.price)
        assertNull("Play does not list it here: no price", products.first { it.id == "greenhouse" }.displayPrice)
        val club = products.first { it.id == "garden_club" }
        assertEquals("P1M", club.storeProduct?.subscriptionPeriod)
        assertEquals(true, club.isEligibleForIntroOffer)
        assertEquals("P1W", club.introductoryOffer?.period)

        // The demo's offerings, priced the same way.
        val standard = phone.shopkeeper.shopOfferings().current
        assertEquals("standard", standard?.offeringId)
        val clubPackage = standard?.packages?.firstOrNull { it.product.id == "garden_club" }
        assertEquals("€3.49", clubPackage?.product?.displayPrice)
        assertEquals("P1W", clubPackage?.product?.introductoryOffer?.period)

        val bought = phone.shopkeeper.purchase("garden_club")
        assertTrue("bought: $bought", bought is PurchaseOutcome.Delivered)
        val after = phone.shopkeeper.products().first { it.id == "garden_club" }
        assertEquals(false, after.isEligibleForIntroOffer)
        assertNull(after.introductoryOffer)
        assertEquals("P1W", after.storeProduct?.introductoryOffer?.period)
    }
}
