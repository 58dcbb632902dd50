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
        let packageName = context.parameters.get("packageName") ?? ""
        guard let authorization = request.headers[.authorization], authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer ",
            let account = await store.accountForAccessToken(String(authorization.dropFirst(7)), at: Date())
        else { throw GoogleAPIError.unauthenticated }
        guard account.packageName == packageName else { throw GoogleAPIError.permissionDenied }
        return packageName
    }

    private func voidedPurchases(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let packageName = try await authorize(request, context)
        let query = request.uri.queryParameters
        let now = Date().appleMilliseconds
        func number(_ name: String) throws -> Int64? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int64(text), value >= 0 else { throw GoogleAPIError.invalidValue }
            return value
        }
        let end = try number("endTime") ?? now
        let start = try number("startTime") ?? (end - Self.voidedDefaultWindowMilliseconds)
        let pageSize = Int(try number("maxResults") ?? Int64(Self.voidedPageSize))
        let type = try number("type") ?? 0
        guard start <= end, (1...Self.voidedPageSize).contains(pageSize), type == 0 || type == 1 else {
            throw GoogleAPIError.invalidValue
        }
        var offset = 0
        if let token = query.get("token") {
            guard let decoded = HistoryRevision.offset(of: token) else { throw GoogleAPIError.invalidValue }
            offset = decoded
        }
        let all = await store.voidedPurchases(
            packageName: packageName, window: start...end, includeSubscriptions: type == 1)
        let page = all.dropFirst(offset).prefix(pageSize)
        let next = min(offset, all.count) + page.count
        return try JSONBody.response(
            GoogleVoidedPurchasesListResponse(
                voidedPurchases: page.isEmpty ? nil : page.map(\.voidedPurchase),
                pageInfo: GooglePageInfo(totalResults: all.count, resultPerPage: pageSize, startIndex: offset),
                tokenPagination: next < all.count
                    ? GoogleTokenPagination(nextPageToken: HistoryRevision.token(for: next)) : nil
            ))
    }
}
