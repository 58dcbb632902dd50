import Foundation

extension ShopkeeperAPI {
    /// `GET /v1/offerings`: which offering to show the customer, and every offering as this build sees it (cached by
    /// `ETag`, one entry per query). `country` is the storefront's ISO 3166-1 alpha-2 code (`DE`; StoreKit's
    /// `Storefront.countryCode` is alpha-3): without it, targeting rules that name countries do not match.
    public func offerings(
        appUserID: String, platform: StorePlatform, appVersion: String, build: BuildKind, variant: String? = nil,
        locale: String? = nil, country: String? = nil
    ) async throws(ShopkeeperError) -> OfferingsView {
        var query = [
            URLQueryItem(name: "app_user_id", value: appUserID),
            URLQueryItem(name: "platform", value: platform.rawValue),
            URLQueryItem(name: "app_version", value: appVersion),
            URLQueryItem(name: "build", value: build.rawValue),
        ]
        if let variant, !variant.isEmpty { query.append(URLQueryItem(name: "variant", value: variant)) }
        if let locale, !locale.isEmpty { query.append(URLQueryItem(name: "locale", value: locale)) }
        if let country, !country.isEmpty { query.append(URLQueryItem(name: "country", value: country)) }
        return try await send(
            APIRequest(method: "GET", path: "/v1/offerings", query: query, customer: appUserID, cached: true),
            as: OfferingsView.self)
    }
}
