import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// The Play Developer API under `/google/androidpublisher/v3/applications`: purchases.products (get, acknowledge,
/// consume), purchases.subscriptionsv2.get, purchases.subscriptions.acknowledge and purchases.voidedpurchases.list,
/// behind an access token from `/google/token`.
struct PlayDeveloperAPIController {
    /// Default and largest `maxResults` of the voided-purchases list.
    static let voidedPageSize = 1000
    /// How far back the voided-purchases list looks by default (Google keeps 30 days).
    static let voidedDefaultWindowMilliseconds: Int64 = 30 * 86_400_000

    let store: SandboxStore
    let traffic: StoreTraffic

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        let product = "{packageName}/purchases/products/{productId}/tokens"
        routes.get("\(product)/{token}") { request, context in
            try await serve(.googleProductsGet, request, context) { record in
                guard record.kind == .product else { throw GoogleAPIError.invalidValue }
                return try JSONBody.response(record.productPurchase)
            }
        }
        routes.post("\(product)/{token}:acknowledge") { request, context in
            try await serve(.googleProductsAcknowledge, request, context) { record in
                guard record.kind == .product else { throw GoogleAPIError.invalidValue }
                _ = try await store.acknowledgeGooglePurchase(token: record.purchaseToken)
                return Self.emptyResponse
            }
        }
        routes.post("\(product)/{token}:consume") { request, context in
            try await serve(.googleProductsConsume, request, context) { record in
                guard record.kind == .product else { throw GoogleAPIError.invalidValue }
                _ = try await store.consumeGooglePurchase(token: record.purchaseToken)
                return Self.emptyResponse
            }
        }
        routes.get("{packageName}/purchases/subscriptionsv2/tokens/{token}") { request, context in
            try await serve(.googleSubscriptionsV2Get, request, context) { record in
                guard record.kind == .subscription else { throw GoogleAPIError.invalidValue }
                return try JSONBody.response(record.subscriptionPurchase(at: Date()))
            }
        }
        routes.post("{packageName}/purchases/subscriptions/{productId}/tokens/{token}:acknowledge") {
            request, context in
            try await serve(.googleSubscriptionsAcknowledge, request, context) { record in
                guard record.kind == .subscription else { throw GoogleAPIError.invalidValue }
                _ = try await store.acknowledgeGooglePurchase(token: record.purchaseToken)
                return Self.emptyResponse
            }
        }
        routes.get("{packageName}/purchases/voidedpurchases") { request, context in
            try await traffic.observe(.googleVoidedPurchasesList) { _ in
                try await ErrorMapping.google { try await self.voidedPurchases(request, context) }
            }
        }
        return routes
    }

    /// Google answers acknowledge and consume with 200 and an empty body.
    static var emptyResponse: Response {
        Response(status: .ok, headers: [.contentLength: "0"])
    }

    /// Counts the call, applies faults, checks the access token, finds the purchase named by the path.
    private func serve(
        _ endpoint: StoreEndpoint, _ request: Request, _ context: ServiceRequestContext,
        _ handler: (GooglePurchaseRecord) async throws -> Response
    ) async throws -> Response {
        try await traffic.observe(endpoint) { _ in
            try await ErrorMapping.google {
                let packageName = try await authorize(request, context)
                let token = context.parameters.get("token") ?? ""
                guard let record = await store.googlePurchase(token: token), record.packageName == packageName,
                    context.parameters.get("productId").map({ $0 == record.productId }) ?? true
                else { throw GoogleAPIError.invalidValue }
                return try await handler(record)
            }
        }
    }

    /// Checks the bearer access token and that its service account may act for the package in the path.
    private func authorize(_ request: Request, _ context: ServiceRequestContext) async throws -> String {
        try await PlayAccessCheck(store: store, traffic: traffic).packageName(request, context)
    }

    /// Like Google, a page token stands for its whole query: with `token`, `startTime`, `endTime` and `type` are
    /// ignored and the token's own are used. Quantity-based partial refunds (with their `voidedQuantity`) are listed
    /// only with `includeQuantityBasedPartialRefund=true`, as Google lists them.
    private func voidedPurchases(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let packageName = try await authorize(request, context)
        let query = request.uri.queryParameters
        let now = Date().appleMilliseconds
        func number(_ name: String) throws -> Int64? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int64(text), value >= 0 else { throw GoogleAPIError.invalidValue }
            return value
        }
        if let flag = query.get("includeQuantityBasedPartialRefund"), flag != "true", flag != "false" {
            throw GoogleAPIError.invalidValue
        }
        let pageSize = Int(try number("maxResults") ?? Int64(Self.voidedPageSize))
        guard (1...Self.voidedPageSize).contains(pageSize) else { throw GoogleAPIError.invalidValue }
        let page: VoidedPage
        if let token = query.get("token") {
            guard let decoded = VoidedPage(token: token) else { throw GoogleAPIError.invalidValue }
            page = decoded
        } else {
            let end = try number("endTime") ?? now
            let start = try number("startTime") ?? (end - Self.voidedDefaultWindowMilliseconds)
            let type = try number("type") ?? 0
            guard start <= end, type == 0 || type == 1 else { throw GoogleAPIError.invalidValue }
            page = VoidedPage(
                offset: 0, start: start, end: end, includeSubscriptions: type == 1,
                includePartial: query.get("includeQuantityBasedPartialRefund") == "true")
        }
        let all = await store.voidedPurchases(
            packageName: packageName, window: page.start...page.end, includeSubscriptions: page.includeSubscriptions,
            includePartial: page.includePartial)
        let listed = all.dropFirst(page.offset).prefix(pageSize)
        var next = page
        next.offset = min(page.offset, all.count) + listed.count
        return try JSONBody.response(
            GoogleVoidedPurchasesListResponse(
                voidedPurchases: listed.isEmpty ? nil : listed.map(\.voidedPurchase),
                pageInfo: GooglePageInfo(totalResults: all.count, resultPerPage: pageSize, startIndex: page.offset),
                tokenPagination: next.offset < all.count ? GoogleTokenPagination(nextPageToken: next.token) : nil
            ))
    }
}

/// A page of the voided-purchases list and the query it belongs to, carried by the page token.
struct VoidedPage: Equatable {
    private static let prefix = "sbxv1"

    var offset: Int
    var start: Int64
    var end: Int64
    var includeSubscriptions: Bool
    /// Quantity-based partial refunds are listed (`includeQuantityBasedPartialRefund=true`).
    var includePartial: Bool

    init(offset: Int, start: Int64, end: Int64, includeSubscriptions: Bool, includePartial: Bool = false) {
        self.offset = offset
        self.start = start
        self.end = end
        self.includeSubscriptions = includeSubscriptions
        self.includePartial = includePartial
    }

    /// The page a token names; `nil` for a token this sandbox did not make. A token without the partial-refund flag
    /// (made before it existed) lists no partial refunds.
    init?(token: String) {
        guard let bytes = Base64URL.decode(token) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".").map(String.init)
        let flags: Set<String> = ["0", "1"]
        guard parts.count == 5 || parts.count == 6, parts[0] == Self.prefix, let offset = Int(parts[1]), offset >= 0,
            let start = Int64(parts[2]), let end = Int64(parts[3]), start <= end, flags.contains(parts[4]),
            parts.count == 5 || flags.contains(parts[5])
        else { return nil }
        self.init(
            offset: offset, start: start, end: end, includeSubscriptions: parts[4] == "1",
            includePartial: parts.count == 6 && parts[5] == "1")
    }

    /// The opaque token of this page.
    var token: String {
        let text = [
            Self.prefix, String(offset), String(start), String(end), includeSubscriptions ? "1" : "0",
            includePartial ? "1" : "0",
        ]
        return Base64URL.encode(Array(text.joined(separator: ".").utf8))
    }
}
