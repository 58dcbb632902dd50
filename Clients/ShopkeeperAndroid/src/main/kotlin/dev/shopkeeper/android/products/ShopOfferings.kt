package dev.shopkeeper.android.products

import dev.shopkeeper.android.models.CatalogItem
import dev.shopkeeper.android.models.OfferingView
import dev.shopkeeper.android.models.OfferingsView
import dev.shopkeeper.android.models.PaywallView

/**
 * The offerings with the store's prices (ShopkeeperKit's `ShopOfferings`): [OfferingsView] with each package's product
 * joined with the device store's product, as [dev.shopkeeper.android.purchases.products] joins the catalog. Render
 * [current]'s paywall with its packages' [ShopProduct.displayPrice].
 */
data class ShopOfferings(
    /** The offering to show; `null` when the app has no offerings. */
    val currentOfferingId: String?,
    /** The targeting rule that chose it; `null` when the default offering was served. */
    val ruleId: String?,
    /** Every offering of the app, as the server lists them. */
    val offerings: List<ShopOffering>
) {
    /** The offering to show, if the app has one. */
    val current: ShopOffering?
        get() = currentOfferingId?.let { offering(it) }

    /** The offering with this id. */
    fun offering(offeringId: String): ShopOffering? = offerings.firstOrNull { it.offeringId == offeringId }

    companion object {
        /**
         * Every catalog product the offerings' packages sell, each once, in the order they first appear: what to ask the
         * store (and eligibility) about.
         */
        fun products(view: OfferingsView): List<CatalogItem> =
            view.offerings.flatMap { it.packages }.map { it.product }.distinctBy { it.productId }

        /**
         * The offerings with each package's product joined with its store product and the eligibility answered for its
         * catalog product id ([ShopProduct.join]; [storeProducts] `null` when the store's could not be loaded). Pure:
         * `Shopkeeper.shopOfferings` gathers the inputs.
         */
        fun join(
            view: OfferingsView,
            storeProducts: List<StoreProduct>?,
            eligibility: Map<String, Boolean> = emptyMap()
        ): ShopOfferings = ShopOfferings(
            view.currentOfferingId, view.ruleId,
            view.offerings.map { offering ->
                val products = ShopProduct.join(offering.packages.map { it.product }, storeProducts, eligibility)
                ShopOffering(offering, offering.packages.zip(products) { pack, product -> ShopPackage(pack.packageId, product) })
            }
        )
    }
}

/** One offering with the store's prices: the server's [view] with its packages priced. */
data class ShopOffering(
    /** The offering as the server answered it. */
    val view: OfferingView,
    /** The packages this build may buy, in order, with the store's prices. */
    val packages: List<ShopPackage>
) {
    /** The developer's offering id. */
    val offeringId: String
        get() = view.offeringId

    /** The developer's note on it. */
    val description: String?
        get() = view.description

    /** The paywall to render, in the locale closest to the caller's. */
    val paywall: PaywallView?
        get() = view.paywall

    /** The package with this id (`$monthly`). */
    fun packageWithId(packageId: String): ShopPackage? = packages.firstOrNull { it.packageId == packageId }
}

/** One package of an offering with the store's product: buy [product] (its `id`) as any catalog product. */
data class ShopPackage(
    /** The developer's package id (`$monthly`, `$annual`). */
    val packageId: String,
    /** The product it sells, with the store's price. */
    val product: ShopProduct
)
