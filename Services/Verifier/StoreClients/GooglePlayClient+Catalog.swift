import Foundation
import NIOHTTP1
import ShopkeeperModels
import ShopkeeperStores

/// The Android Publisher API v3's monetization endpoints, read for the catalog sync with the app's service account
/// (the access token the purchase checks use): `monetization.onetimeproducts.list`, `monetization.subscriptions.list`
/// and `monetization.subscriptions.basePlans.offers.list` (every offer of the app at once, `-`/`-`), each followed
/// page by page (`pageToken` from `nextPageToken`).
extension GooglePlayClient {
    /// The most pages read of one list (1000 products a page).
    static let maxCatalogPages = 50

    /// What Play sells for the app, in the catalog sync's shape (``GooglePlayCatalogMapping``), sorted by id.
    func catalog(credentials: GoogleCredentials) async throws(VerifierError) -> [StoreCatalogProduct] {
        let oneTime = try await pages("oneTimeProducts", as: GoogleOneTimeProductsPage.self, credentials)
            .flatMap { $0.oneTimeProducts ?? [] }
        let subscriptions = try await pages("subscriptions", as: GoogleSubscriptionsPage.self, credentials)
            .flatMap { $0.subscriptions ?? [] }
        var offers: [GoogleSubscriptionOffer] = []
        if !subscriptions.isEmpty {
            offers = try await pages(
                "subscriptions/-/basePlans/-/offers", as: GoogleSubscriptionOffersPage.self, credentials
            ).flatMap { $0.subscriptionOffers ?? [] }
        }
        let products =
            oneTime.map(GooglePlayCatalogMapping.product)
            + subscriptions.map { subscription in
                GooglePlayCatalogMapping.product(
                    subscription, offers: offers.filter { $0.productId == subscription.productId })
            }
        return products.sorted { $0.storeProductID < $1.storeProductID }
    }

    /// Every page of one list, at most ``maxCatalogPages``.
    private func pages<Page: GoogleListPage>(_ path: String, as: Page.Type, _ credentials: GoogleCredentials)
        async throws(VerifierError) -> [Page]
    {
        var pages: [Page] = []
        var token: String?
        repeat {
            let query = "pageSize=1000" + (token.map { "&pageToken=\($0.pathSegmentEscaped)" } ?? "")
            let answer = try await call(.GET, "\(path)?\(query)", credentials: credentials)
            guard answer.status == 200 else {
                let message = Self.message(answer)
                switch answer.status {
                case 401, 403, 404:
                    throw .storeCredentialsRejected(
                        .google,
                        "the Android Publisher API answered \(answer.status) for \(credentials.packageName) \(message)")
                default:
                    throw .storeUnavailable(
                        store: "Google Play", reason: "answer \(answer.status) \(message)", retryAfterSeconds: 5)
                }
            }
            guard let page = try? JSONDecoder().decode(Page.self, from: answer.data) else {
                throw .storeUnavailable(store: "Google Play", reason: "an unreadable answer", retryAfterSeconds: 5)
            }
            pages.append(page)
            token = page.nextPageToken.flatMap { $0.isEmpty ? nil : $0 }
        } while token != nil && pages.count < Self.maxCatalogPages
        return pages
    }
}

/// A page of one of Google's lists: another follows while `nextPageToken` is given.
protocol GoogleListPage: Decodable {
    var nextPageToken: String? { get }
}

extension GoogleOneTimeProductsPage: GoogleListPage {}
extension GoogleSubscriptionsPage: GoogleListPage {}
extension GoogleSubscriptionOffersPage: GoogleListPage {}
