import AsyncHTTPClient
import Crypto
import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// The App Store Connect API, read for the catalog sync: the app (by bundle id), its in-app purchases and
/// subscriptions with their review states, and each one's manual prices per territory. JWT auth with a cached token,
/// 429 and 5xx retried, every page followed (`links.next`).
struct AppStoreConnectClient: Sendable {
    let http: StoreHTTP
    let baseURL: URL
    let retry: RetryPolicy
    let tokens: BearerTokenCache
    /// The most pages read of one collection.
    var maxPages = 50

    /// What the store sells for the app `bundleID`, read with `key`.
    func catalog(bundleID: String, key: AppStoreAPIKey) async throws(VerifierError) -> [StoreCatalogProduct] {
        let apps: [AppStoreConnectResource<AppStoreConnectAppAttributes>] = try await all(
            "/v1/apps?filter%5BbundleId%5D=\(bundleID.pathSegmentEscaped)", key: key)
        guard let app = apps.first(where: { $0.attributes?.bundleId == bundleID }) else {
            throw .storeCredentialsRejected(
                .apple, "App Store Connect knows no app with bundle id \(bundleID) for this key's team")
        }
        // Each product with the address of its prices (and the relationship naming their price points).
        var drafts: [(product: StoreCatalogProduct, prices: String, relation: String)] = []
        let purchases: [AppStoreConnectResource<AppStoreConnectInAppPurchaseAttributes>] = try await all(
            "/v1/apps/\(app.id.pathSegmentEscaped)/inAppPurchasesV2?limit=200", key: key)
        for purchase in purchases {
            guard let attributes = purchase.attributes else { continue }
            drafts.append(
                (
                    StoreCatalogProduct(
                        storeProductID: attributes.productId,
                        type: AppStoreConnectMapping.type(attributes.inAppPurchaseType), referenceName: attributes.name,
                        storeState: attributes.state, reviewState: AppStoreConnectMapping.reviewState(attributes.state),
                        prices: []),
                    "/v1/inAppPurchasePriceSchedules/\(purchase.id.pathSegmentEscaped)/manualPrices"
                        + "?include=inAppPurchasePricePoint,territory&limit=200",
                    "inAppPurchasePricePoint"
                ))
        }
        let groups: [AppStoreConnectResource<AppStoreConnectSubscriptionGroupAttributes>] = try await all(
            "/v1/apps/\(app.id.pathSegmentEscaped)/subscriptionGroups?limit=200", key: key)
        for group in groups {
            let subscriptions: [AppStoreConnectResource<AppStoreConnectSubscriptionAttributes>] = try await all(
                "/v1/subscriptionGroups/\(group.id.pathSegmentEscaped)/subscriptions?limit=200", key: key)
            for subscription in subscriptions {
                guard let attributes = subscription.attributes else { continue }
                drafts.append(
                    (
                        StoreCatalogProduct(
                            storeProductID: attributes.productId, type: .autoRenewable, referenceName: attributes.name,
                            storeState: attributes.state,
                            reviewState: AppStoreConnectMapping.reviewState(attributes.state),
                            subscriptionGroup: group.attributes?.referenceName,
                            subscriptionPeriod: attributes.subscriptionPeriod, prices: []),
                        "/v1/subscriptions/\(subscription.id.pathSegmentEscaped)/prices"
                            + "?include=subscriptionPricePoint,territory&limit=200",
                        "subscriptionPricePoint"
                    ))
            }
        }
        var products: [StoreCatalogProduct] = []
        for var draft in drafts {
            draft.product.prices = try await prices(draft.prices, pointRelation: draft.relation, key: key)
            products.append(draft.product)
        }
        return products.sorted { $0.storeProductID < $1.storeProductID }
    }

    /// The prices in force now (no `startDate`, or one in the past), one per territory, joined with their included
    /// price points and territories.
    private func prices(_ path: String, pointRelation: String, key: AppStoreAPIKey) async throws(VerifierError)
        -> [StorePrice]
    {
        var byTerritory: [String: StorePrice] = [:]
        for page in try await pages(path, as: AppStoreConnectPriceAttributes.self, key: key) {
            let included = Dictionary(
                (page.included ?? []).map { ("\($0.type)/\($0.id)", $0.attributes) }, uniquingKeysWith: { a, _ in a })
            for price in page.data {
                if let start = price.attributes?.startDate, start > Self.today() { continue }
                guard let point = price.relationships?[pointRelation]?.data,
                    let territory = price.relationships?["territory"]?.data,
                    let amount = included["\(point.type)/\(point.id)"]??.customerPrice,
                    let currency = included["\(territory.type)/\(territory.id)"]??.currency
                else { continue }
                byTerritory[territory.id] = StorePrice(territory: territory.id, currency: currency, price: amount)
            }
        }
        return byTerritory.values.sorted { $0.territory < $1.territory }
    }

    /// Today as App Store Connect writes dates (`2026-11-28`).
    private static func today() -> String {
        String(ISO8601DateFormatter().string(from: Date()).prefix(10))
    }

    /// Every resource of a collection, across its pages.
    private func all<A: Codable & Sendable & Equatable>(_ path: String, key: AppStoreAPIKey)
        async throws(VerifierError) -> [AppStoreConnectResource<A>]
    {
        try await pages(path, as: A.self, key: key).flatMap(\.data)
    }

    /// Every page of a collection, following `links.next` (at most ``maxPages``).
    private func pages<A: Codable & Sendable & Equatable>(_ path: String, as: A.Type, key: AppStoreAPIKey)
        async throws(VerifierError) -> [AppStoreConnectDocument<A>]
    {
        var documents: [AppStoreConnectDocument<A>] = []
        var url: String? = baseURL.absoluteString + path
        while let next = url, documents.count < maxPages {
            let answer = try await call(next, key: key)
            guard answer.status == 200 else {
                if answer.status == 404 {
                    throw .storeCredentialsRejected(.apple, "App Store Connect answered 404 for \(path)")
                }
                throw .storeUnavailable(
                    store: "App Store Connect", reason: "answer \(answer.status)", retryAfterSeconds: 5)
            }
            guard let document = try? JSONDecoder().decode(AppStoreConnectDocument<A>.self, from: answer.data) else {
                throw .storeUnavailable(
                    store: "App Store Connect", reason: "an unreadable answer", retryAfterSeconds: 5)
            }
            documents.append(document)
            // Only pages of the same API are followed: a `next` elsewhere would carry the token away.
            url = document.links.next.flatMap { $0.hasPrefix(baseURL.absoluteString) ? $0 : nil }
        }
        return documents
    }

    /// One GET with the key's bearer token; 429, 5xx and no answer are tried again, 401 and 403 are
    /// ``VerifierError/storeCredentialsRejected(_:_:)``.
    private func call(_ url: String, key: AppStoreAPIKey) async throws(VerifierError) -> StoreHTTP.Answer {
        let tokenKey = "connect/\(key.issuerID)/\(key.keyID)"
        return try await retry.run(store: "App Store Connect") { (_: Int) async throws(StoreAttemptError) in
            let token: String
            do {
                token = try await tokens.token(for: tokenKey) { try Self.makeToken(key: key) }
            } catch {
                throw .final(.storeCredentialsRejected(.apple, "the App Store Connect API key cannot sign"))
            }
            var request = HTTPClientRequest(url: url)
            request.method = .GET
            request.headers.add(name: "authorization", value: "Bearer \(token)")
            let answer = try await http.sendSorted(
                request, endpoint: .appStoreConnectAPI, what: "the App Store Connect API")
            if answer.status == 401 || answer.status == 403 {
                tokens.forget(tokenKey)
                throw .final(
                    .storeCredentialsRejected(.apple, "App Store Connect refused the API key (\(answer.status))"))
            }
            return answer
        }
    }

    /// A bearer token as Apple documents it for the App Store Connect API: ES256, `kid` the key id, `typ` JWT;
    /// `iss`, `iat` (a minute ago, for clock skew), `exp` 20 minutes after `iat`, `aud` `appstoreconnect-v1`.
    static func makeToken(key: AppStoreAPIKey, now: Date = Date()) throws -> (token: String, lifetime: TimeInterval) {
        let privateKey = try P256.Signing.PrivateKey(pemRepresentation: key.privateKey)
        let signer = try ES256Signer(key: privateKey, header: JWSHeader(alg: "ES256", kid: key.keyID, typ: "JWT"))
        let claims = AppStoreConnectClaims(issuerID: key.issuerID, now: now.addingTimeInterval(-60))
        return (try signer.sign(claims), 18 * 60)
    }
}

/// App Store Connect's words in the catalog's.
enum AppStoreConnectMapping {
    /// An in-app purchase's type (`CONSUMABLE`, `NON_CONSUMABLE`, `NON_RENEWING_SUBSCRIPTION`).
    static func type(_ word: String) -> ProductType {
        switch word {
        case "CONSUMABLE": .consumable
        case "NON_RENEWING_SUBSCRIPTION": .nonRenewing
        default: .nonConsumable
        }
    }

    /// A review state: only `APPROVED` is approved (what distribution builds see); waiting and in review stay
    /// visible to development builds; a product Apple or the developer took off sale is removed; one that needs the
    /// developer's action, or was rejected, is rejected; one not yet submitted waits for the developer.
    static func reviewState(_ word: String) -> ReviewState {
        switch word {
        case "APPROVED": .approved
        case "WAITING_FOR_REVIEW": .waitingForReview
        case "IN_REVIEW": .inReview
        case "DEVELOPER_ACTION_NEEDED", "REJECTED": .rejected
        case "DEVELOPER_REMOVED_FROM_SALE", "REMOVED_FROM_SALE": .removed
        default: .pendingDeveloperApproval
        }
    }
}
