package dev.shopkeeper.android

import dev.shopkeeper.android.core.RetryPolicy
import dev.shopkeeper.android.core.jsonOf
import dev.shopkeeper.android.models.ProductType
import dev.shopkeeper.android.products.IntroductoryOffer
import dev.shopkeeper.android.products.StoreProduct
import dev.shopkeeper.android.products.StoreProductQuery
import dev.shopkeeper.android.purchases.PlayProductMapping
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayOneTimePrice
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayPricingPhase
import dev.shopkeeper.android.purchases.PlayProductMapping.PlayProductDetails
import dev.shopkeeper.android.purchases.PlayProductMapping.PlaySubscriptionOffer
import dev.shopkeeper.android.purchases.Shopkeeper
import dev.shopkeeper.android.purchases.products
import dev.shopkeeper.android.purchases.shopOfferings
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Store prices: Play's `ProductDetails` read as store products ([PlayProductMapping], the rules of the Android-only
 * code), joined with the catalog by `Shopkeeper.products()` against a real local server, with the customer's intro
 * offer eligibility, and the catalog's price hints when the store's products cannot be loaded.
 */
class StorePricesTest : WithLocalServer() {
    private fun phase(price: String, micros: Long, period: String, mode: Int, cycles: Int = 0) =
        PlayPricingPhase(price, micros, "USD", period, cycles, mode)

    private val monthly = phase("$2.99", 2_990_000, "P1M", PlayProductMapping.INFINITE_RECURRING)

    private fun subscription(vararg offers: PlaySubscriptionOffer) =
        PlayProductDetails("club", "subs", "Garden Club", "Monthly seeds", null, offers.toList())

    @Test
    fun aOneTimeProductIsItsOneTimeOffer() {
        val details = PlayProductDetails(
            "garden", "inapp", "Extra Garden", "A second garden", PlayOneTimePrice("2,99 €", 2_990_000, "EUR"), emptyList()
        )
        assertEquals(
            StoreProduct(
                "garden", "Extra Garden", "A second garden", "2,99 €", BigDecimal("2.99"), currencyCode = "EUR"
            ),
            PlayProductMapping.storeProduct(details)
        )
        assertNull("no price, not sold", PlayProductMapping.storeProduct(details.copy(oneTimePrice = null)))
        assertEquals(BigDecimal.ZERO, PlayProductMapping.amount(0))
        assertEquals(BigDecimal("0.99"), PlayProductMapping.amount(990_000))
        assertEquals(BigDecimal("100"), PlayProductMapping.amount(100_000_000))
    }

    @Test
    fun aSubscriptionIsItsBasePlansRenewingPriceWithItsFirstIntroOffer() {
        val base = PlaySubscriptionOffer("monthly", null, listOf(monthly))
        val trial = PlaySubscriptionOffer(
            "monthly", "free-week", listOf(phase("Free", 0, "P1W", PlayProductMapping.FINITE_RECURRING, 1), monthly)
        )
        val club = PlayProductMapping.storeProduct(subscription(trial, base))
        assertEquals("$2.99", club?.displayPrice)
        assertEquals(BigDecimal("2.99"), club?.price)
        assertEquals("P1M", club?.subscriptionPeriod)
        assertEquals(
            IntroductoryOffer(IntroductoryOffer.PaymentMode.FREE_TRIAL, "P1W", 1, BigDecimal.ZERO, "Free"),
            club?.introductoryOffer
        )

        // Three months at 0.99, then the base price: pay as you go, three periods.
        val cheap = PlaySubscriptionOffer(
            "monthly", "welcome", listOf(phase("$0.99", 990_000, "P1M", PlayProductMapping.FINITE_RECURRING, 3), monthly)
        )
        val payAsYouGo = PlayProductMapping.storeProduct(subscription(base, cheap))?.introductoryOffer
        assertEquals(IntroductoryOffer.PaymentMode.PAY_AS_YOU_GO, payAsYouGo?.paymentMode)
        assertEquals(3, payAsYouGo?.periodCount)
        assertEquals(BigDecimal("0.99"), payAsYouGo?.price)
        // One payment for the first half year.
        val upFront = PlaySubscriptionOffer(
            "monthly", "half", listOf(phase("$9.99", 9_990_000, "P6M", PlayProductMapping.NON_RECURRING), monthly)
        )
        assertEquals(
            IntroductoryOffer.PaymentMode.PAY_UP_FRONT,
            PlayProductMapping.storeProduct(subscription(base, upFront))?.introductoryOffer?.paymentMode
        )
        // An offer on another base plan, or one that only renews (an upgrade offer), is no intro offer of this one.
        val yearlyTrial = PlaySubscriptionOffer(
            "yearly", "trial", listOf(phase("Free", 0, "P1W", PlayProductMapping.FINITE_RECURRING, 1))
        )
        val renewOnly = PlaySubscriptionOffer("monthly", "loyal", listOf(monthly))
        assertNull(PlayProductMapping.storeProduct(subscription(base, yearlyTrial, renewOnly))?.introductoryOffer)
        assertNull("no base plan, no price", PlayProductMapping.storeProduct(subscription(trial)))
    }

    @Test
    fun aSubscriptionIsBoughtThroughItsBasePlanOrItsIntroOfferWhenShown() {
        val base = PlaySubscriptionOffer("monthly", null, listOf(monthly), "token-base")
        val yearly = PlaySubscriptionOffer("yearly", null, listOf(monthly), "token-yearly")
        val trial = PlaySubscriptionOffer(
            "monthly", "free-week", listOf(phase("Free", 0, "P1W", PlayProductMapping.FINITE_RECURRING, 1), monthly),
            "token-trial"
        )
        // Whatever order Play lists them in: the first base plan, its intro offer only when the app showed it.
        for (offers in listOf(listOf(trial, base, yearly), listOf(base, trial, yearly), listOf(yearly, base, trial))) {
            val first = if (offers.indexOf(yearly) < offers.indexOf(base)) "token-yearly" else "token-base"
            assertEquals(first, PlayProductMapping.purchaseOfferToken(offers, introductoryOffer = false))
            val intro = if (first == "token-base") "token-trial" else "token-yearly"
            assertEquals(intro, PlayProductMapping.purchaseOfferToken(offers, introductoryOffer = true))
        }
        // No intro offer at Play (the customer had it there): the base plan.
        assertEquals("token-base", PlayProductMapping.purchaseOfferToken(listOf(base), introductoryOffer = true))
        assertNull(PlayProductMapping.purchaseOfferToken(listOf(trial), introductoryOffer = true))
    }

    @Test
    fun theIntroOfferChoiceReachesTheDeviceStore() = runBlocking<Unit> {
        server.handler = { request ->
            when (request.path) {
                "/v1/catalog" -> Reply.json(200, catalog)
                "/v1/purchases" -> Reply.json(200, Answers.purchase(request.json(), "club"))
                else -> Reply.problem(404, "not_found")
            }
        }
        val store = MemoryDeviceStore()
        val shopkeeper = shopkeeper(store)
        shopkeeper.purchase("club", introductoryOffer = true)
        shopkeeper.purchase("garden")
        assertEquals(listOf(true, false), store.requests.map { it.introductoryOffer })
    }

    private fun shopkeeper(store: MemoryDeviceStore) = Shopkeeper(
        configuration(server, storage, RetryPolicy(maxAttempts = 1)), store
    )

    private val catalog = Answers.catalog(
        Answers.item("garden", "non_consumable") + jsonOf("price_hint" to "$2.99"),
        Answers.item("club", "auto_renewable") + jsonOf("price_hint" to "$2.99/month"),
        Answers.item("seeds", "non_consumable", availability = "included")
    )

    private fun serve(eligible: Boolean?) {
        server.handler = { request ->
            when {
                request.path == "/v1/catalog" -> Reply.json(200, catalog)
                request.path.endsWith("/eligibility") -> if (eligible == null) Reply.problem(503, "database_unavailable")
                else Reply.json(200, jsonOf("product_id" to "club", "eligible" to eligible, "reason" to if (eligible) null else "trial_used"))
                else -> Reply.problem(404, "not_found")
            }
        }
    }

    private fun clubAtPlay() = StoreProduct(
        "play_club", "Garden Club", displayPrice = "$2.99", price = BigDecimal("2.99"), currencyCode = "USD",
        subscriptionPeriod = "P1M",
        introductoryOffer = IntroductoryOffer(IntroductoryOffer.PaymentMode.FREE_TRIAL, "P1W", price = BigDecimal.ZERO)
    )

    @Test
    fun productsJoinTheCatalogWithPlaysPricesAndAskEligibilityForIntroOffersOnly() = runBlocking<Unit> {
        serve(eligible = true)
        val store = MemoryDeviceStore()
        store.storeProducts = listOf(
            StoreProduct("play_garden", "Extra Garden", displayPrice = "$3.49", price = BigDecimal("3.49")), clubAtPlay()
        )
        val products = shopkeeper(store).products()
        assertEquals(listOf("garden", "club", "seeds"), products.map { it.id })
        assertEquals(
            listOf(StoreProductQuery("play_garden", ProductType.NON_CONSUMABLE), StoreProductQuery("play_club", ProductType.AUTO_RENEWABLE)),
            store.productQueries.single()
        )
        assertEquals("$3.49", products[0].displayPrice)
        assertFalse("the store's price, not the hint", products[0].isPriceHint)
        assertNull(products[0].isEligibleForIntroOffer)
        assertEquals("$2.99", products[1].displayPrice)
        assertEquals(true, products[1].isEligibleForIntroOffer)
        assertEquals("P1W", products[1].introductoryOffer?.period)
        assertNull("an included product has no price", products[2].displayPrice)
        val asked = server.requests.filter { it.path.endsWith("/eligibility") }
        assertEquals(1, asked.size)
        assertTrue(asked[0].query ?: "", (asked[0].query ?: "").startsWith("product_id=club&device_id="))
    }

    @Test
    fun anIneligibleCustomerOrAnUnansweredQuestionShowsNoIntroOffer() = runBlocking<Unit> {
        val store = MemoryDeviceStore()
        store.storeProducts = listOf(clubAtPlay())
        serve(eligible = false)
        val refused = shopkeeper(store).products().first { it.id == "club" }
        assertEquals(false, refused.isEligibleForIntroOffer)
        assertNull(refused.introductoryOffer)
        assertEquals("P1W", refused.storeProduct?.introductoryOffer?.period)
        serve(eligible = null)
        val unanswered = shopkeeper(store).products().first { it.id == "club" }
        assertNull(unanswered.isEligibleForIntroOffer)
        assertNull(unanswered.introductoryOffer)
        // Play does not sell the garden here: no price at all, not the catalog's hint.
        assertNull(shopkeeper(store).products().first { it.id == "garden" }.displayPrice)
    }

    @Test
    fun offeringsArePricedAsTheCatalogIs() = runBlocking<Unit> {
        val view = jsonOf(
            "current_offering_id" to "standard",
            "offerings" to listOf(
                jsonOf(
                    "offering_id" to "standard",
                    "packages" to listOf(
                        jsonOf("package_id" to "\$monthly", "product" to Answers.item("club", "auto_renewable")),
                        jsonOf("package_id" to "\$garden", "product" to Answers.item("garden", "non_consumable"))
                    )
                ),
                jsonOf(
                    "offering_id" to "lean",
                    "packages" to listOf(jsonOf("package_id" to "\$monthly", "product" to Answers.item("club", "auto_renewable")))
                )
            )
        )
        server.handler = { request ->
            if (request.path == "/v1/offerings") Reply.json(200, view)
            else Reply.json(200, jsonOf("product_id" to "club", "eligible" to true, "reason" to null))
        }
        val store = MemoryDeviceStore()
        store.storeProducts = listOf(clubAtPlay())
        val offerings = shopkeeper(store).shopOfferings(country = "US")
        val current = offerings.current ?: throw AssertionError("no current offering")
        assertEquals(listOf("\$monthly", "\$garden"), current.packages.map { it.packageId })
        assertEquals("$2.99", current.packageWithId("\$monthly")?.product?.displayPrice)
        assertEquals("P1W", current.packageWithId("\$monthly")?.product?.introductoryOffer?.period)
        assertNull("Play does not list it", current.packageWithId("\$garden")?.product?.displayPrice)
        assertEquals("$2.99", offerings.offering("lean")?.packages?.single()?.product?.displayPrice)
        // The store and the server were asked once per product, however many offerings sell it.
        assertEquals(listOf("play_club", "play_garden"), store.productQueries.single().map { it.storeProductId })
        assertEquals(1, server.requests.count { it.path.endsWith("/eligibility") })
    }

    @Test
    fun whenTheStoresProductsCannotBeLoadedTheCatalogsHintsAreShown() = runBlocking<Unit> {
        serve(eligible = true)
        val products = shopkeeper(MemoryDeviceStore()).products()
        assertEquals(listOf("$2.99", "$2.99/month", null), products.map { it.displayPrice })
        assertEquals(listOf(true, true, false), products.map { it.isPriceHint })
        assertTrue(products.all { it.storeProduct == null && !it.storePricesLoaded })
        assertTrue("no offer to ask about", server.requests.none { it.path.endsWith("/eligibility") })
    }
}
