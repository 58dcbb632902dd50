package dev.shopkeeper.android.products

import dev.shopkeeper.android.models.CatalogItem

/**
 * A catalog product with what the device's store says of it: Shopkeeper's catalog decides what is sold, to whom and
 * with what texts; the store says what it costs in the customer's country. ShopkeeperKit's `ShopProduct`, and where
 * the store's products could not be loaded at all (Play unavailable, the sandbox), the catalog's `price_hint`.
 */
data class ShopProduct(
    /** The catalog's product. */
    val item: CatalogItem,
    /**
     * The store's product; `null` when the product is not sold through the store (a free product), the store does not
     * offer it to this customer (yet), or the store's products could not be loaded.
     */
    val storeProduct: StoreProduct? = null,
    /**
     * Whether Shopkeeper deems this customer eligible for the store product's introductory offer (across every store):
     * `null` when there is no offer or the server could not be asked.
     */
    val isEligibleForIntroOffer: Boolean? = null,
    /** Whether the store's products were loaded; when they were not, [displayPrice] is the catalog's hint. */
    val storePricesLoaded: Boolean = true
) {
    /** The catalog product id. */
    val id: String
        get() = item.productId

    /**
     * The price to show: the store's (`$2.99`, `2,99 €`) when it sells the product here; when the store's products
     * could not be loaded, the catalog's `price_hint` ([isPriceHint]); else `null`: show no price.
     */
    val displayPrice: String?
        get() = storeProduct?.displayPrice ?: if (storePricesLoaded) null else item.priceHint

    /** Whether [displayPrice] is the catalog's hint rather than the store's price (show it as approximate). */
    val isPriceHint: Boolean
        get() = storeProduct == null && !storePricesLoaded && item.priceHint != null

    /** The introductory offer to show this customer: the store's, when Shopkeeper says the customer may have it. */
    val introductoryOffer: IntroductoryOffer?
        get() = if (isEligibleForIntroOffer == true) storeProduct?.introductoryOffer else null

    companion object {
        /**
         * The catalog's products, in the catalog's order, each with its store product (matched by store product id) and
         * the eligibility answered for its catalog product id. [storeProducts] is `null` when the store's products could
         * not be loaded. Pure: [dev.shopkeeper.android.purchases.Shopkeeper.products] gathers the inputs.
         */
        fun join(
            catalog: List<CatalogItem>,
            storeProducts: List<StoreProduct>?,
            eligibility: Map<String, Boolean> = emptyMap()
        ): List<ShopProduct> {
            val byStoreId = LinkedHashMap<String, StoreProduct>()
            for (product in storeProducts ?: emptyList()) if (product.id !in byStoreId) byStoreId[product.id] = product
            return catalog.map { item ->
                val store = item.storeProductId?.let { byStoreId[it] }
                ShopProduct(
                    item, store, if (store?.introductoryOffer == null) null else eligibility[item.productId],
                    storePricesLoaded = storeProducts != null
                )
            }
        }

        /** The catalog products whose eligibility to ask Shopkeeper about: those whose store product has an intro offer. */
        fun needingEligibility(catalog: List<CatalogItem>, storeProducts: List<StoreProduct>): List<String> {
            val withOffer = storeProducts.filter { it.introductoryOffer != null }.map { it.id }.toSet()
            return catalog.filter { it.storeProductId != null && it.storeProductId in withOffer }.map { it.productId }
        }

        /** What to ask the store about for these catalog products: those it sells, once each. */
        fun queries(catalog: List<CatalogItem>): List<StoreProductQuery> = catalog
            .mapNotNull { item -> item.storeProductId?.let { StoreProductQuery(it, item.type) } }
            .distinctBy { it.storeProductId }
    }
}
