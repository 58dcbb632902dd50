package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf

/** The offerings one build shows one customer (`GET /v1/offerings`, schema `OfferingsView`). */
data class OfferingsView(
    /** The offering to show; absent when the app has no offerings. */
    val currentOfferingId: String?,
    /** The targeting rule that chose it; absent when the default was served. */
    val ruleId: String?,
    /** Every offering of the app, as this build sees it. */
    val offerings: List<OfferingView>,
    /** The experiment whose variant chose the current offering; absent when no running experiment applied. */
    val experiment: ExperimentAssignment? = null
) {
    /** The offering to show, if the app has one. */
    val current: OfferingView?
        get() = currentOfferingId?.let(::offering)

    /** The offering with this id. */
    fun offering(offeringId: String): OfferingView? = offerings.firstOrNull { it.offeringId == offeringId }

    fun toJson() = jsonOf(
        "current_offering_id" to currentOfferingId, "rule_id" to ruleId, "offerings" to offerings.map { it.toJson() },
        "experiment" to experiment?.toJson()
    )

    companion object {
        fun from(json: JsonObject) = OfferingsView(
            currentOfferingId = json.stringOrNull("current_offering_id"), ruleId = json.stringOrNull("rule_id"),
            offerings = json.list("offerings", OfferingView.Companion::from),
            experiment = json.objOrNull("experiment")?.let(ExperimentAssignment.Companion::from)
        )
    }
}

/** The experiment and variant a customer was assigned when offerings were served (schema `OfferingsView.experiment`). */
data class ExperimentAssignment(val id: String, val variant: String) {
    fun toJson() = jsonOf("id" to id, "variant" to variant)

    companion object {
        fun from(json: JsonObject) = ExperimentAssignment(id = json.string("id"), variant = json.string("variant"))
    }
}

/** One offering: its packages (those whose product the build may see, in order) and its paywall (schema `OfferingView`). */
data class OfferingView(
    val offeringId: String,
    val description: String?,
    val packages: List<PackageView>,
    val paywall: PaywallView?
) {
    /** The package with this id (`$monthly`, say). */
    fun packageWithId(packageId: String): PackageView? = packages.firstOrNull { it.packageId == packageId }

    fun toJson() = jsonOf(
        "offering_id" to offeringId, "description" to description, "packages" to packages.map { it.toJson() },
        "paywall" to paywall?.toJson()
    )

    companion object {
        fun from(json: JsonObject) = OfferingView(
            offeringId = json.string("offering_id"), description = json.stringOrNull("description"),
            packages = json.list("packages", PackageView.Companion::from),
            paywall = json.objOrNull("paywall")?.let(PaywallView.Companion::from)
        )
    }
}

/** A package: an id the paywall places (`$annual`) and the product it sells, as the catalog shows it (schema `PackageView`). */
data class PackageView(val packageId: String, val product: CatalogItem) {
    fun toJson() = jsonOf("package_id" to packageId, "product" to product.toJson())

    companion object {
        fun from(json: JsonObject) =
            PackageView(packageId = json.string("package_id"), product = CatalogItem.from(json.obj("product")))
    }
}

/** A paywall in the locale closest to the caller's (schema `PaywallView`). */
data class PaywallView(
    val layout: String,
    /** Named colours (`background`, `accent`), as the developer wrote them (`#F1F8E9`). */
    val colors: Map<String, String>,
    /** Named image URLs (`header`). */
    val imageUrls: Map<String, String>,
    /** The locale the texts are in. */
    val locale: String,
    val title: String,
    val subtitle: String?,
    val features: List<String>,
    val callToAction: String?
) {
    fun toJson() = jsonOf(
        "layout" to layout, "colors" to colors, "image_urls" to imageUrls, "locale" to locale, "title" to title,
        "subtitle" to subtitle, "features" to features, "call_to_action" to callToAction
    )

    companion object {
        fun from(json: JsonObject) = PaywallView(
            layout = json.string("layout"), colors = json.stringMap("colors"), imageUrls = json.stringMap("image_urls"),
            locale = json.string("locale"), title = json.string("title"), subtitle = json.stringOrNull("subtitle"),
            features = json.strings("features"), callToAction = json.stringOrNull("call_to_action")
        )
    }
}
