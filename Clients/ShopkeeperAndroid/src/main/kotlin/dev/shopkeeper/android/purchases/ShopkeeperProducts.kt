package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CatalogItem
import dev.shopkeeper.android.products.ShopProduct
import dev.shopkeeper.android.products.StoreProduct

/**
 * The shop with the store's prices (ShopkeeperKit's `products()`): the catalog as this build sees it ([Shopkeeper.catalog]),
 * each product joined with the device store's product ([DeviceStore.products]: Play Billing's `ProductDetails`) for its
 * formatted price, subscription period and introductory offer, and, where the store product has an introductory
 * offer, whether Shopkeeper deems this customer eligible for it ([Shopkeeper.eligibility]; a failed question leaves
 * it `null`). When the store's products cannot be loaded (Play unavailable, the sandbox store), each product shows the
 * catalog's `price_hint` ([ShopProduct.isPriceHint]). In the catalog's order.
 */
suspend fun Shopkeeper.products(): List<ShopProduct> {
    val catalog = catalog().products
    val storeProducts = storeProducts(catalog)
    val eligibility = HashMap<String, Boolean>()
    for (productId in ShopProduct.needingEligibility(catalog, storeProducts ?: emptyList())) {
        try {
            eligibility[productId] = eligibility(productId).eligible
        } catch (error: ShopkeeperException) {
            // Not asked: the offer is not shown (isEligibleForIntroOffer stays null).
        }
    }
    return ShopProduct.join(catalog, storeProducts, eligibility)
}

/** The device store's products for these catalog products, or `null` when the store could not list them. */
private suspend fun Shopkeeper.storeProducts(catalog: List<CatalogItem>): List<StoreProduct>? {
    val queries = ShopProduct.queries(catalog)
    if (queries.isEmpty()) return emptyList()
    return try {
        store.products(queries)
    } catch (error: ShopkeeperException.DeviceStore) {
        null
    }
}
