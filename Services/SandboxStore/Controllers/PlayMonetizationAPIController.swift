import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The Android Publisher API v3's monetization endpoints the catalog sync reads, under
/// `/google/androidpublisher/v3/applications`, over the sandbox's Play catalog (``PlayCatalog``), behind the same
/// access-token check as its Play Developer API (``PlayAccessCheck``), with Google's error format:
///
/// - `GET {packageName}/oneTimeProducts` (`monetization.onetimeproducts.list`, `ListOneTimeProductsResponse`).
/// - `GET {packageName}/subscriptions` (`monetization.subscriptions.list`, `ListSubscriptionsResponse`).
/// - `GET {packageName}/subscriptions/{productId}/basePlans/{basePlanId}/offers`
///   (`monetization.subscriptions.basePlans.offers.list`, `ListSubscriptionOffersResponse`; `-` for every
///   subscription or base plan, as Google allows).
///
/// Paged as Google pages them: `pageSize` (default 50, at most 1000: larger is taken as 1000) and an opaque
/// `pageToken` from the previous page's `nextPageToken`, absent on the last page. Shapes as in Google's REST
/// reference for v3 (`OneTimeProduct` with `purchaseOptions[].regionalPricingAndAvailabilityConfigs[]`,
/// `Subscription` with `basePlans[].regionalConfigs[]`, prices as `Money`), not the retired `inappproducts` resource.
struct PlayMonetizationAPIController {
    /// Google's default and largest page sizes.
    static let defaultPageSize = 50
    static let maxPageSize = 1000

    let access: PlayAccessCheck
    let catalog: PlayCatalog

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("{packageName}/oneTimeProducts") { request, context in
            try await serve(.googleOneTimeProductsList, request, context) { packageName in
                let all = await catalog.products(packageName: packageName).filter { $0.type == PlayProduct.oneTime }
                let (page, next) = try Self.page(all, request)
                return try JSONBody.response(
                    GoogleOneTimeProductsPage(
                        oneTimeProducts: page.map { $0.oneTimeProduct(packageName: packageName) },
                        nextPageToken: next))
            }
        }
        routes.get("{packageName}/subscriptions") { request, context in
            try await serve(.googleSubscriptionsList, request, context) { packageName in
                let all = await catalog.products(packageName: packageName).filter {
                    $0.type == PlayProduct.subscription
                }
                let (page, next) = try Self.page(all, request)
                return try JSONBody.response(
                    GoogleSubscriptionsPage(
                        subscriptions: page.map { $0.subscription(packageName: packageName) }, nextPageToken: next))
            }
        }
        routes.get("{packageName}/subscriptions/{productId}/basePlans/{basePlanId}/offers") { request, context in
            try await serve(.googleOffersList, request, context) { packageName in
                let productID = context.parameters.get("productId") ?? ""
                let basePlanID = context.parameters.get("basePlanId") ?? ""
                guard productID != "-" || basePlanID == "-" else { throw GoogleAPIError.invalidValue }
                let subscriptions = await catalog.products(packageName: packageName).filter {
                    $0.type == PlayProduct.subscription && (productID == "-" || $0.productID == productID)
                }
                guard productID == "-" || !subscriptions.isEmpty else { throw GoogleAPIError.notFound }
                let plans = subscriptions.flatMap { product in
                    (product.basePlans ?? []).map { (product, $0) }
                }.filter { basePlanID == "-" || $0.1.basePlanID == basePlanID }
                guard basePlanID == "-" || !plans.isEmpty else { throw GoogleAPIError.notFound }
                let offers = plans.flatMap { product, plan in
                    (plan.offers ?? []).map { $0.offer(packageName: packageName, productID: product.productID, plan) }
                }
                let (page, next) = try Self.page(offers, request)
                return try JSONBody.response(
                    GoogleSubscriptionOffersPage(subscriptionOffers: page, nextPageToken: next))
            }
        }
        return routes
    }

    /// Counts the call, applies faults, checks the access token for the path's package, answers Google's errors.
    private func serve(
        _ endpoint: StoreEndpoint, _ request: Request, _ context: ServiceRequestContext,
        _ handler: (String) async throws -> Response
    ) async throws -> Response {
        try await access.traffic.observe(endpoint) { _ in
            try await ErrorMapping.google { try await handler(try await access.packageName(request, context)) }
        }
    }

    /// The page of `all` the query asks for, and the token of the next one (`nil` after the last).
    static func page<T>(_ all: [T], _ request: Request) throws -> (page: [T], next: String?) {
        let query = request.uri.queryParameters
        var size = defaultPageSize
        if let text = query.get("pageSize") {
            guard let value = Int(text), value >= 0 else { throw GoogleAPIError.invalidValue }
            size = value == 0 ? defaultPageSize : min(value, maxPageSize)
        }
        var offset = 0
        if let token = query.get("pageToken"), !token.isEmpty {
            guard let bytes = Base64URL.decode(token),
                case let parts = String(decoding: bytes, as: UTF8.self).split(separator: "."),
                parts.count == 2, parts[0] == "sbxm1", let value = Int(parts[1]), value >= 0
            else { throw GoogleAPIError.invalidValue }
            offset = value
        }
        let page = Array(all.dropFirst(offset).prefix(size))
        let end = offset + page.count
        return (page, end < all.count ? Base64URL.encode(Array("sbxm1.\(end)".utf8)) : nil)
    }
}

extension PlayProduct {
    /// Google's `OneTimeProduct`: one legacy-compatible buy option carrying the state and the regional prices.
    func oneTimeProduct(packageName: String) -> GoogleOneTimeProduct {
        GoogleOneTimeProduct(
            packageName: packageName, productId: productID,
            listings: [GoogleProductListing(languageCode: "en-US", title: title ?? productID, description: "")],
            purchaseOptions: [
                GooglePurchaseOption(
                    purchaseOptionId: "buy", state: state ?? "ACTIVE",
                    buyOption: GoogleBuyOption(legacyCompatible: true, multiQuantityEnabled: multiQuantity ?? false),
                    regionalPricingAndAvailabilityConfigs: (prices ?? []).map {
                        GoogleRegionalPricing(regionCode: $0.region, price: $0.money, availability: "AVAILABLE")
                    })
            ])
    }

    /// Google's `Subscription`: every base plan, the first one legacy-compatible.
    func subscription(packageName: String) -> GoogleSubscriptionProduct {
        GoogleSubscriptionProduct(
            packageName: packageName, productId: productID,
            listings: [GoogleProductListing(languageCode: "en-US", title: title ?? productID, benefits: [])],
            basePlans: (basePlans ?? []).enumerated().map { index, plan in
                let period = GoogleRenewalType(billingPeriodDuration: plan.period)
                return GoogleBasePlan(
                    basePlanId: plan.basePlanID, state: plan.state ?? "ACTIVE",
                    autoRenewingBasePlanType: plan.prepaid == true
                        ? nil : GoogleRenewalType(billingPeriodDuration: plan.period, legacyCompatible: index == 0),
                    prepaidBasePlanType: plan.prepaid == true ? period : nil,
                    regionalConfigs: plan.prices.map {
                        GoogleRegionalBasePlanConfig(
                            regionCode: $0.region, newSubscriberAvailability: true, price: $0.money)
                    })
            })
    }
}

extension PlayOffer {
    /// Google's `SubscriptionOffer`: a free trial is one phase of its length, repeated once.
    func offer(packageName: String, productID: String, _ plan: PlayBasePlan) -> GoogleSubscriptionOffer {
        GoogleSubscriptionOffer(
            packageName: packageName, productId: productID, basePlanId: plan.basePlanID, offerId: offerID,
            state: state ?? "ACTIVE", phases: trial.map { [GoogleOfferPhase(recurrenceCount: 1, duration: $0)] } ?? [])
    }
}

extension PlayPrice {
    /// The price as Google's `Money` (validated when the catalog was set; zero if it somehow is not a decimal).
    var money: GoogleMoney {
        GoogleMoney(currencyCode: currency, decimal: price) ?? GoogleMoney(currencyCode: currency, units: "0", nanos: 0)
    }
}
