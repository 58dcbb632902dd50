import Foundation

extension Shopkeeper {
    /// What to offer the current customer (`GET /v1/offerings`): the offering the app's targeting rules choose
    /// (``OfferingsView/current``) and every offering as this build sees it, each package with its catalog product
    /// and the paywall in the closest locale. Asked like ``catalog()`` (platform, app version, build kind, variant,
    /// locale) for the current app user id; cached by `ETag`. `country` is the storefront's ISO 3166-1 code, alpha-3
    /// as StoreKit's `Storefront.countryCode` gives it (`DEU`) or alpha-2 (`DE`): without it, rules naming countries do
    /// not match. ``shopOfferings(country:)`` adds the store's prices.
    public func offerings(country: String? = nil) async throws(ShopkeeperError) -> OfferingsView {
        try await api.offerings(
            appUserID: state.appUserID, platform: configuration.platform, appVersion: configuration.appVersion,
            build: await buildKind(), variant: configuration.variant,
            locale: configuration.locale ?? Self.deviceLocale(), country: country)
    }
}
