package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf

/** The catalog as one build of the app sees it (`GET /v1/catalog`, schema `CatalogView`). */
data class CatalogView(
    val platform: StorePlatform,
    val build: BuildKind,
    /** The app version asked for, in canonical form. */
    val appVersion: String,
    val variant: String?,
    val locale: String?,
    /** The visible products, in sort order. */
    val products: List<CatalogItem>
) {
    /** The product with this catalog id, if the build sees it. */
    fun product(productId: String): CatalogItem? = products.firstOrNull { it.productId == productId }

    fun toJson() = jsonOf(
        "platform" to platform.rawValue, "build" to build.rawValue, "app_version" to appVersion, "variant" to variant,
        "locale" to locale, "products" to products.map { it.toJson() }
    )

    companion object {
        fun from(json: JsonObject) = CatalogView(
            platform = StorePlatform(json.string("platform")), build = BuildKind(json.string("build")),
            appVersion = json.string("app_version"), variant = json.stringOrNull("variant"),
            locale = json.stringOrNull("locale"), products = json.list("products", CatalogItem.Companion::from)
        )
    }
}

/** One product as the calling build sees it (schema `CatalogItem`). */
data class CatalogItem(
    /** The developer's product id. */
    val productId: String,
    val type: ProductType,
    /** How this build may obtain it. */
    val availability: Availability,
    /** The id to buy it with on this platform (the Play product or subscription id); absent for free and included. */
    val storeProductId: String?,
    /** Development builds only: where the product stands in the store's review. */
    val reviewState: String?,
    /** Development builds only: the developer's sale switch. */
    val clearedForSale: Boolean?,
    /** The oldest app version that may buy it. */
    val minAppVersion: String?,
    /** Entitlement ids a purchase unlocks. */
    val entitlements: List<String>,
    /** Units credited per purchase (consumables). */
    val consumableQuantity: Int?,
    /** Length of one subscription period (ISO 8601). */
    val duration: String?,
    /** Length of the free trial (ISO 8601). */
    val trialDuration: String?,
    /** Subscription group or shelf. */
    val group: String?,
    val sortOrder: Int,
    /** The locale of the texts. */
    val locale: String,
    val name: String,
    val description: String?,
    val descriptionUrl: String?,
    val screenshotUrls: List<String>,
    /** A price to show before the store's own price has loaded. */
    val priceHint: String?
) {
    fun toJson() = jsonOf(
        "product_id" to productId, "type" to type.rawValue, "availability" to availability.rawValue,
        "store_product_id" to storeProductId, "review_state" to reviewState, "cleared_for_sale" to clearedForSale,
        "min_app_version" to minAppVersion, "entitlements" to entitlements, "consumable_quantity" to consumableQuantity,
        "duration" to duration, "trial_duration" to trialDuration, "group" to group, "sort_order" to sortOrder,
        "locale" to locale, "name" to name, "description" to description, "description_url" to descriptionUrl,
        "screenshot_urls" to screenshotUrls, "price_hint" to priceHint
    )

    companion object {
        fun from(json: JsonObject) = CatalogItem(
            productId = json.string("product_id"), type = ProductType(json.string("type")),
            availability = Availability(json.string("availability")),
            storeProductId = json.stringOrNull("store_product_id"), reviewState = json.stringOrNull("review_state"),
            clearedForSale = json.booleanOrNull("cleared_for_sale"), minAppVersion = json.stringOrNull("min_app_version"),
            entitlements = json.strings("entitlements"), consumableQuantity = json.intOrNull("consumable_quantity"),
            duration = json.stringOrNull("duration"), trialDuration = json.stringOrNull("trial_duration"),
            group = json.stringOrNull("group"), sortOrder = json.int("sort_order"), locale = json.string("locale"),
            name = json.string("name"), description = json.stringOrNull("description"),
            descriptionUrl = json.stringOrNull("description_url"), screenshotUrls = json.strings("screenshot_urls"),
            priceHint = json.stringOrNull("price_hint")
        )
    }
}
