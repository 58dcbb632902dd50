package dev.shopkeeper.android.models

// String values the server defines, typed where the client knows them and kept as sent where it does not: a value
// the server adds next year decodes instead of failing the whole answer. Values the client does not type further
// (states, reasons, outcomes) are plain strings, compared with the server's spelling (`state == "active"`).

/** A string value of the server's, compared by its spelling (and its kind: a store is never equal to a product type). */
abstract class OpenValue(val rawValue: String) {
    override fun toString() = rawValue

    override fun equals(other: Any?) = other is OpenValue && other.javaClass == javaClass && other.rawValue == rawValue

    override fun hashCode() = rawValue.hashCode()
}

/** A store an app is sold through (`StorePlatform`). */
class StorePlatform(rawValue: String) : OpenValue(rawValue) {
    companion object {
        /** Apple's App Store. */
        val APP_STORE = StorePlatform("app_store")
        /** Google Play. */
        val PLAY_STORE = StorePlatform("play_store")
    }
}

/** What kind of thing a product is (`ProductType`). */
class ProductType(rawValue: String) : OpenValue(rawValue) {
    companion object {
        /** Used up and bought again; counted on the server. */
        val CONSUMABLE = ProductType("consumable")
        /** Bought once, owned for good. */
        val NON_CONSUMABLE = ProductType("non_consumable")
        /** Renewed by the store until cancelled. */
        val AUTO_RENEWABLE = ProductType("auto_renewable")
        /** A fixed period; purchases stack end to end. */
        val NON_RENEWING = ProductType("non_renewing")
    }
}

/** The kind of build asking for the catalog (`BuildKind`). */
class BuildKind(rawValue: String) : OpenValue(rawValue) {
    companion object {
        /** A developer's or tester's build (license testers, the sandbox store): also sees products under review. */
        val DEVELOPMENT = BuildKind("development")
        /** A build from the store: sees only approved products cleared for sale. */
        val DISTRIBUTION = BuildKind("distribution")
    }
}

/** How the calling build may obtain a listed product (`Availability`). */
class Availability(rawValue: String) : OpenValue(rawValue) {
    companion object {
        /** Bought through the store with its `storeProductId`. */
        val PURCHASABLE = Availability("purchasable")
        /** Claimed from Shopkeeper without a store. */
        val FREE = Availability("free")
        /** Already part of the app's variant: shown as owned, never sent to a store. */
        val INCLUDED = Availability("included")
        /** Shown, but the app must update to buy it. */
        val REQUIRES_UPDATE = Availability("requires_update")
    }
}

/** `production` (real money) or `sandbox` (test purchases). */
class StoreEnvironment(rawValue: String) : OpenValue(rawValue) {
    companion object {
        val PRODUCTION = StoreEnvironment("production")
        val SANDBOX = StoreEnvironment("sandbox")
    }
}

/** Which Play Developer API a purchase token belongs to (`PlayPurchaseKind`). */
class PlayPurchaseKind(rawValue: String) : OpenValue(rawValue) {
    companion object {
        /** A one-time product (consumable or not). */
        val PRODUCT = PlayPurchaseKind("product")
        /** A subscription. */
        val SUBSCRIPTION = PlayPurchaseKind("subscription")
    }
}
