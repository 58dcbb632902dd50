import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The App Store Connect API endpoints Shopkeeper's catalog sync reads, over the products the sandbox sells
/// (``SandboxProducts``), mounted at `/appstoreconnect` behind App Store Connect's bearer-token check
/// (``AppStoreConnectAuthenticator``), with its JSON:API documents and error format:
///
/// - `GET /v1/apps?filter[bundleId]=`: the caller's apps (every bundle id its issuer has a key for).
/// - `GET /v1/apps/{id}/inAppPurchasesV2`: consumables, non-consumables and non-renewing subscriptions.
/// - `GET /v1/inAppPurchasePriceSchedules/{id}/manualPrices?include=inAppPurchasePricePoint,territory`.
/// - `GET /v1/apps/{id}/subscriptionGroups`, `GET /v1/subscriptionGroups/{id}/subscriptions`.
/// - `GET /v1/subscriptions/{id}/prices?include=subscriptionPricePoint,territory`.
///
/// Review states and prices change with `PUT /sandbox/apple/products` (`review_state`, `prices`); a product left
/// out of it is deleted at the store. One catalog serves every app of the sandbox.
struct AppStoreConnectAPIController {
    /// App Store Connect's review states of in-app purchases and subscriptions.
    static let reviewStates: Set<String> = [
        "MISSING_METADATA", "WAITING_FOR_UPLOAD", "PROCESSING_CONTENT", "READY_TO_SUBMIT", "WAITING_FOR_REVIEW",
        "IN_REVIEW", "DEVELOPER_ACTION_NEEDED", "PENDING_BINARY_APPROVAL", "APPROVED", "DEVELOPER_REMOVED_FROM_SALE",
        "REMOVED_FROM_SALE", "REJECTED",
    ]
    /// Apple's period words for the ISO 8601 periods the sandbox's products carry.
    static let periods = [
        "P1W": "ONE_WEEK", "P1M": "ONE_MONTH", "P2M": "TWO_MONTHS", "P3M": "THREE_MONTHS", "P6M": "SIX_MONTHS",
        "P1Y": "ONE_YEAR",
    ]

    let store: SandboxStore
    let products: SandboxProducts
    /// `SHOPKEEPER_SANDBOX_PUBLIC_URL`: the address the answers' `links` name (else the request's host).
    let publicURL: URL?

    private var authenticator: AppStoreConnectAuthenticator { AppStoreConnectAuthenticator(store: store) }

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("v1/apps") { request, _ in
            try await serve {
                let issuer = try await authenticator.authenticate(request.headers)
                let apps = await authenticator.apps(ofIssuer: issuer)
                // The key may come percent-encoded (`filter%5BbundleId%5D`), as HTTP clients write brackets.
                let wanted = request.uri.queryParameters.first {
                    String($0.key).removingPercentEncoding == "filter[bundleId]"
                }.map { Set($0.value.split(separator: ",").map(String.init)) }
                let data = apps.filter { wanted?.contains($0.bundleId) ?? true }.map {
                    AppStoreConnectResource(
                        type: "apps", id: String($0.id),
                        attributes: AppStoreConnectAppAttributes(
                            bundleId: $0.bundleId, name: $0.bundleId, sku: $0.bundleId, primaryLocale: "en-US"))
                }
                return try page(data, request: request)
            }
        }
        routes.get("v1/apps/{id}/inAppPurchasesV2") { request, context in
            try await serve {
                try await authorizeApp(request, context)
                let data = await products.all().filter { $0.type != Self.autoRenewable }.map {
                    AppStoreConnectResource(
                        type: "inAppPurchases", id: Self.resourceID($0.productID),
                        attributes: AppStoreConnectInAppPurchaseAttributes(
                            name: $0.referenceName ?? $0.displayName, productId: $0.productID,
                            inAppPurchaseType: Self.inAppPurchaseType($0.type), state: $0.reviewState ?? "APPROVED"))
                }
                return try page(data, request: request)
            }
        }
        routes.get("v1/apps/{id}/subscriptionGroups") { request, context in
            try await serve {
                try await authorizeApp(request, context)
                let groups = Set(await products.all().filter { $0.type == Self.autoRenewable }.map(Self.group))
                let data = groups.sorted().map {
                    AppStoreConnectResource(
                        type: "subscriptionGroups", id: Self.resourceID("group:" + $0),
                        attributes: AppStoreConnectSubscriptionGroupAttributes(referenceName: $0))
                }
                return try page(data, request: request)
            }
        }
        routes.get("v1/subscriptionGroups/{id}/subscriptions") { request, context in
            try await serve {
                _ = try await authenticator.authenticate(request.headers)
                let id = context.parameters.get("id") ?? ""
                let members = await products.all().filter {
                    $0.type == Self.autoRenewable && Self.resourceID("group:" + Self.group($0)) == id
                }
                guard !members.isEmpty else { throw AppStoreConnectAPIError.notFound("subscriptionGroups") }
                let data = members.map {
                    AppStoreConnectResource(
                        type: "subscriptions", id: Self.resourceID($0.productID),
                        attributes: AppStoreConnectSubscriptionAttributes(
                            name: $0.referenceName ?? $0.displayName, productId: $0.productID,
                            state: $0.reviewState ?? "APPROVED",
                            subscriptionPeriod: $0.subscriptionPeriod.flatMap { Self.periods[$0] }))
                }
                return try page(data, request: request)
            }
        }
        routes.get("v1/inAppPurchasePriceSchedules/{id}/manualPrices") { request, context in
            try await serve {
                try await prices(request, context, subscriptions: false)
            }
        }
        routes.get("v1/subscriptions/{id}/prices") { request, context in
            try await serve {
                try await prices(request, context, subscriptions: true)
            }
        }
        return routes
    }

    /// The prices of the product named in the path, each related to its price point and territory (included when
    /// the query's `include` asks for them).
    private func prices(_ request: Request, _ context: ServiceRequestContext, subscriptions: Bool) async throws
        -> Response
    {
        _ = try await authenticator.authenticate(request.headers)
        let id = context.parameters.get("id") ?? ""
        guard
            let product = await products.all().first(where: {
                Self.resourceID($0.productID) == id && ($0.type == Self.autoRenewable) == subscriptions
            })
        else { throw AppStoreConnectAPIError.notFound(subscriptions ? "subscriptions" : "inAppPurchasePriceSchedules") }
        let pointType = subscriptions ? "subscriptionPricePoints" : "inAppPurchasePricePoints"
        let pointRelation = subscriptions ? "subscriptionPricePoint" : "inAppPurchasePricePoint"
        let include = Set((request.uri.queryParameters.get("include") ?? "").split(separator: ",").map(String.init))
        var included: [AppStoreConnectResource<AppStoreConnectIncludedAttributes>] = []
        let data = product.prices.map { price in
            let pointID = Self.resourceID("\(product.productID)/\(price.storefront)/\(price.price)")
            if include.contains(pointRelation) {
                included.append(
                    AppStoreConnectResource(
                        type: pointType, id: pointID,
                        attributes: AppStoreConnectIncludedAttributes(
                            customerPrice: Self.decimal(price.price), proceeds: Self.decimal(price.price * 7 / 10))))
            }
            if include.contains("territory") {
                included.append(
                    AppStoreConnectResource(
                        type: "territories", id: price.storefront,
                        attributes: AppStoreConnectIncludedAttributes(currency: price.currency)))
            }
            return AppStoreConnectResource(
                type: subscriptions ? "subscriptionPrices" : "inAppPurchasePrices",
                id: Self.resourceID("\(product.productID)/\(price.storefront)"),
                attributes: AppStoreConnectPriceAttributes(),
                relationships: [
                    pointRelation: AppStoreConnectRelationship(data: .init(type: pointType, id: pointID)),
                    "territory": AppStoreConnectRelationship(data: .init(type: "territories", id: price.storefront)),
                ])
        }
        return try page(data, included: included, request: request)
    }

    /// Checks the token and that the app in the path is one of the caller's.
    private func authorizeApp(_ request: Request, _ context: ServiceRequestContext) async throws {
        let issuer = try await authenticator.authenticate(request.headers)
        let id = context.parameters.get("id") ?? ""
        guard await authenticator.apps(ofIssuer: issuer).contains(where: { String($0.id) == id }) else {
            throw AppStoreConnectAPIError.notFound("apps")
        }
    }

    /// One page of `data` (`limit`, at most 200, default 50; `cursor` the offset), with `links.next` while more
    /// follow.
    private func page<A: Codable & Sendable & Equatable>(
        _ data: [AppStoreConnectResource<A>],
        included: [AppStoreConnectResource<AppStoreConnectIncludedAttributes>] = [], request: Request
    ) throws -> Response {
        let query = request.uri.queryParameters
        let limit = query.get("limit").flatMap(Int.init) ?? 50
        let offset = query.get("cursor").flatMap(Int.init) ?? 0
        guard (1...200).contains(limit), offset >= 0 else {
            throw AppStoreConnectAPIError.parameterError("limit must be 1 to 200")
        }
        let slice = Array(data.dropFirst(offset).prefix(limit))
        let path = request.uri.path
        let base = PublicBaseURL.of(publicURL, request)
        var next: String?
        if offset + limit < data.count {
            next = "\(base)\(path)?limit=\(limit)&cursor=\(offset + limit)"
            if let include = query.get("include") { next? += "&include=\(include)" }
        }
        return try JSONBody.response(
            AppStoreConnectDocument(
                data: slice, included: included.isEmpty ? nil : included,
                links: AppStoreConnectLinks(self: base + path, next: next),
                meta: AppStoreConnectMeta(paging: .init(total: data.count, limit: limit))))
    }

    /// Runs `body`, answering App Store Connect's errors as its JSON:API error document.
    private func serve(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as AppStoreConnectAPIError {
            return try JSONBody.response(error.document, status: error.status)
        }
    }

    static let autoRenewable = "Auto-Renewable Subscription"

    static func group(_ product: SandboxProduct) -> String { product.subscriptionGroup ?? "Default" }

    /// App Store Connect's type word of an in-app purchase.
    static func inAppPurchaseType(_ type: String) -> String {
        switch type {
        case "Consumable": "CONSUMABLE"
        case "Non-Renewing Subscription": "NON_RENEWING_SUBSCRIPTION"
        default: "NON_CONSUMABLE"
        }
    }

    /// A stable numeric id (App Store Connect's ids are numbers as strings).
    static func resourceID(_ text: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(1_000_000_000 + hash % 8_999_999_999)
    }

    /// Milliunits as App Store Connect writes a price (`1.99`, `10`).
    static func decimal(_ milliunits: Int64) -> String {
        "\(Decimal(milliunits) / 1000)"
    }
}
