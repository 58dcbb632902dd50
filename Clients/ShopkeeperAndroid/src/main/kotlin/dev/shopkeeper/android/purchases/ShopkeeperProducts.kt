package dev.shopkeeper.android.purchases

import dev.shopkeeper.android.core.ShopkeeperException
import dev.shopkeeper.android.models.CatalogItem
import dev.shopkeeper.android.products.ShopOfferings
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
    val (storeProducts, eligibility) = storeFacts(catalog)
    return ShopProduct.join(catalog, storeProducts, eligibility)
}

/**
 * What to offer the current customer ([Shopkeeper.offerings]; [country] is Play's `BillingConfig.countryCode`) with the
 * store's prices: each package's product joined with the device store's product and the customer's intro offer
 * eligibility, as [products] joins the catalog (ShopkeeperKit's `shopOfferings(country:)`).
 */
suspend fun Shopkeeper.shopOfferings(country: String? = null): ShopOfferings {
    val view = offerings(country)
    val (storeProducts, eligibility) = storeFacts(ShopOfferings.products(view))
    return ShopOfferings.join(view, storeProducts, eligibility)
}

/**
 * The device store's products for these catalog products (`null` when the store could not list them), and this
 * customer's eligibility for the introductory offers among them (a failed question is left out).
 */
private suspend fun Shopkeeper.storeFacts(items: List<CatalogItem>): Pair<List<StoreProduct>?, Map<String, Boolean>> {
    val queries = ShopProduct.queries(items)
    val storeProducts = if (queries.isEmpty()) emptyList() else try {
        store.products(queries)
    } catch (error: ShopkeeperException.DeviceStore) {
        null
    }
    val answers = HashMap<String, Boolean>()
    for (productId in ShopProduct.needingEligibility(items, storeProducts ?: emptyList())) {
        try {
            answers[productId] = eligibility(productId).eligible
        } catch (error: ShopkeeperException) {
            // Not asked: the offer is not shown (isEligibleForIntroOffer stays null).
        }
    }
    return Pair(storeProducts, answers)
}
