package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.products.IntroductoryOffer
import dev.shopkeeper.android.products.StoreProduct
import java.math.BigDecimal

/**
 * How the Play Billing device store (`src/playbilling`) reads a `ProductDetails` as a [StoreProduct], as plain
 * functions of plain values (the `Play...` classes below hold exactly the fields it copies), so the JVM tests cover
 * the rules the Android-only code follows.
 */
object PlayProductMapping {
    /** `ProductDetails.RecurrenceMode.INFINITE_RECURRING`: the base plan's price, renewing. */
    const val INFINITE_RECURRING = 1
    /** `ProductDetails.RecurrenceMode.FINITE_RECURRING`: a price for [PlayPricingPhase.billingCycleCount] periods. */
    const val FINITE_RECURRING = 2
    /** `ProductDetails.RecurrenceMode.NON_RECURRING`: one payment for the phase. */
    const val NON_RECURRING = 3

    /** One `ProductDetails.PricingPhase`. */
    data class PlayPricingPhase(
        val formattedPrice: String,
        val priceAmountMicros: Long,
        val priceCurrencyCode: String,
        /** ISO 8601 (`P1M`). */
        val billingPeriod: String,
        /** Cycles of a finite phase; 0 for the others. */
        val billingCycleCount: Int,
        val recurrenceMode: Int
    )

    /** One `ProductDetails.SubscriptionOfferDetails`: a base plan (no offer id) or a developer offer on it. */
    data class PlaySubscriptionOffer(
        val basePlanId: String,
        val offerId: String?,
        val phases: List<PlayPricingPhase>,
        /** What `BillingFlowParams.ProductDetailsParams.setOfferToken` takes to buy through this offer. */
        val offerToken: String = ""
    )

    /** `ProductDetails.OneTimePurchaseOfferDetails`. */
    data class PlayOneTimePrice(val formattedPrice: String, val priceAmountMicros: Long, val priceCurrencyCode: String)

    /** The `ProductDetails` fields a [StoreProduct] is made of. */
    data class PlayProductDetails(
        val productId: String,
        /** `BillingClient.ProductType`: `inapp` or `subs`. */
        val productType: String,
        val name: String,
        val description: String,
        val oneTimePrice: PlayOneTimePrice?,
        val subscriptionOffers: List<PlaySubscriptionOffer>
    )

    /** A price in micro-units (`2990000`) as an amount (`2.99`, `100`, `0`), without trailing zeros. */
    fun amount(micros: Long): BigDecimal {
        val amount = BigDecimal.valueOf(micros, 6).stripTrailingZeros()
        return if (amount.scale() < 0) amount.setScale(0) else amount
    }

    /**
     * The store product Play's details describe, or `null` when Play gives it no price (no one-time offer, no base plan).
     * A subscription's price and period are its base plan's renewing phase (the first base plan Play lists); its
     * introductory offer is the first developer offer on that base plan whose first phase is not the renewing price
     * (Play lists only the offers this customer may have).
     */
    fun storeProduct(details: PlayProductDetails): StoreProduct? {
        if (details.productType != "subs") {
            val price = details.oneTimePrice ?: return null
            return StoreProduct(
                id = details.productId, displayName = details.name, description = details.description,
                displayPrice = price.formattedPrice, price = amount(price.priceAmountMicros),
                currencyCode = price.priceCurrencyCode
            )
        }
        val basePlan = basePlan(details.subscriptionOffers) ?: return null
        val renewing = basePlan.phases.lastOrNull { it.recurrenceMode == INFINITE_RECURRING } ?: basePlan.phases.last()
        val intro = introOffer(details.subscriptionOffers)?.phases?.firstOrNull()
        return StoreProduct(
            id = details.productId, displayName = details.name, description = details.description,
            displayPrice = renewing.formattedPrice, price = amount(renewing.priceAmountMicros),
            currencyCode = renewing.priceCurrencyCode, subscriptionPeriod = renewing.billingPeriod,
            introductoryOffer = intro?.let { introductoryOffer(it) }
        )
    }

    /** The base plan a subscription is priced and bought by: the first Play lists (an offer without an offer id). */
    fun basePlan(offers: List<PlaySubscriptionOffer>): PlaySubscriptionOffer? =
        offers.firstOrNull { it.offerId == null && it.phases.isNotEmpty() }

    /**
     * The introductory offer of the [basePlan]: its first developer offer whose first phase is not the renewing price
     * (Play lists only the offers this customer may have at Play).
     */
    fun introOffer(offers: List<PlaySubscriptionOffer>): PlaySubscriptionOffer? {
        val basePlan = basePlan(offers) ?: return null
        return offers.firstOrNull { offer ->
            offer.offerId != null && offer.basePlanId == basePlan.basePlanId &&
                offer.phases.firstOrNull().let { it != null && it.recurrenceMode != INFINITE_RECURRING }
        }
    }

    /**
     * The offer token to buy a subscription with: its introductory offer's when [introductoryOffer] (the app showed it:
     * Shopkeeper deems the customer eligible) and Play has one, else its base plan's; `null` when Play lists neither.
     */
    fun purchaseOfferToken(offers: List<PlaySubscriptionOffer>, introductoryOffer: Boolean): String? =
        (if (introductoryOffer) introOffer(offers) else null)?.offerToken ?: basePlan(offers)?.offerToken

    /** An introductory phase as an offer: free (no price), a few periods at a lower price, or one payment up front. */
    fun introductoryOffer(phase: PlayPricingPhase): IntroductoryOffer {
        val mode = when {
            phase.priceAmountMicros == 0L -> IntroductoryOffer.PaymentMode.FREE_TRIAL
            phase.recurrenceMode == NON_RECURRING -> IntroductoryOffer.PaymentMode.PAY_UP_FRONT
            else -> IntroductoryOffer.PaymentMode.PAY_AS_YOU_GO
        }
        val count = if (phase.recurrenceMode == FINITE_RECURRING && phase.billingCycleCount > 0) phase.billingCycleCount else 1
        return IntroductoryOffer(mode, phase.billingPeriod, count, amount(phase.priceAmountMicros), phase.formattedPrice)
    }
}
