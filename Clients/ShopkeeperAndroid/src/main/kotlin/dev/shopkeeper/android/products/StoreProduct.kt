package dev.shopkeeper.android.products

import dev.shopkeeper.android.models.ProductType
import java.math.BigDecimal

/**
 * A product as the device's store shows it to this customer: Play Billing's `ProductDetails` on Android
 * ([dev.shopkeeper.android.purchases.PlayProductMapping]). Show [displayPrice]: it is the price the store charges,
 * written as the customer's country writes money (`$2.99`, `2,99 €`). ShopkeeperKit's `StoreProduct`.
 */
data class StoreProduct(
    /** The product's id at the store (the Play product or subscription id). */
    val id: String,
    /** The name the store shows. */
    val displayName: String,
    /** The description the store shows. */
    val description: String = "",
    /** The price, formatted by the store (`ProductDetails`' `formattedPrice`); a subscription's recurring price. */
    val displayPrice: String,
    /** The price in [currencyCode]. */
    val price: BigDecimal,
    /** ISO 4217 (`USD`, `EUR`), when the store says. */
    val currencyCode: String? = null,
    /** The storefront (ISO 3166-1 alpha-3), when the store says (Play's product details do not). */
    val storefront: String? = null,
    /** A subscription's period (ISO 8601: `P1M`, `P1Y`). */
    val subscriptionPeriod: String? = null,
    /**
     * A subscription's introductory offer (a free trial, a lower first price), as the store offers it:
     * [ShopProduct.introductoryOffer] is the one to show this customer.
     */
    val introductoryOffer: IntroductoryOffer? = null
)

/** A subscription's introductory offer (on Play: a developer offer's first pricing phase). */
data class IntroductoryOffer(
    /** How the customer pays during the offer. */
    val paymentMode: PaymentMode,
    /** One period of the offer (ISO 8601: `P1W`). */
    val period: String,
    /** How many periods the offer lasts (pay as you go: that many periods at [price]). */
    val periodCount: Int = 1,
    /** The price per period (0 for a free trial). */
    val price: BigDecimal,
    /** The price as the store writes it, where it says (Play does). */
    val displayPrice: String? = null
) {
    /** How an introductory offer is paid. */
    enum class PaymentMode(val rawValue: String) {
        /** Nothing to pay during the offer. */
        FREE_TRIAL("free_trial"),
        /** A lower price each period of the offer. */
        PAY_AS_YOU_GO("pay_as_you_go"),
        /** One lower price for the whole offer, up front. */
        PAY_UP_FRONT("pay_up_front")
    }
}

/** A product to ask the device's store about: Play queries one-time products and subscriptions apart. */
data class StoreProductQuery(
    /** The product's id at the store. */
    val storeProductId: String,
    /** The catalog's type of it. */
    val productType: ProductType
)
