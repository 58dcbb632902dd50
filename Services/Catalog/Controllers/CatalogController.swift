import Hummingbird
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/catalog`: the shop window for one build of the caller's app (public or secret key).
struct CatalogController {
    let cache: CatalogCache
    /// How long the gateway may reuse a response (the cache's own refresh interval, so changes still show within
    /// a second everywhere).
    let gatewayCacheTTL: Duration

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { request, context in try await self.catalog(request: request, context: context) }
        routes.head { request, context in try await self.catalog(request: request, context: context) }
        return routes
    }

    private func catalog(request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let query = try Self.query(from: request.uri.queryParameters)
        let rendered = try await cache.rendered(appID: caller.appID, query: query)
        return rendered.response(to: request, gatewayCacheTTL: gatewayCacheTTL)
    }

    /// Reads and checks the query parameters; every problem is reported at once.
    static func query(from parameters: Parameters) throws(RequestError) -> CatalogQuery {
        var problems: [FieldProblem] = []
        let platformText = parameters.get("platform")
        let platform = platformText.flatMap(StorePlatform.init(rawValue:))
        if platform == nil {
            problems.append(FieldProblem(pointer: "?platform", detail: "must be app_store, play_store or stripe"))
        }
        let buildText = parameters.get("build") ?? BuildKind.distribution.rawValue
        let build = BuildKind(rawValue: buildText)
        if build == nil {
            problems.append(FieldProblem(pointer: "?build", detail: "must be development or distribution"))
        }
        let versionText = parameters.get("app_version")
        let version = versionText.flatMap(AppVersion.init)
        if version == nil {
            problems.append(
                FieldProblem(pointer: "?app_version", detail: "must be a version such as 1.2.3 (one to four numbers)")
            )
        }
        let variant = parameters.get("variant").flatMap { $0.isEmpty ? nil : $0 }
        if let variant, !ProductValidator.isIdentifier(variant, maxLength: 64) {
            problems.append(FieldProblem(pointer: "?variant", detail: "must be 1-64 letters, digits, '.', '_' or '-'"))
        }
        let locale = parameters.get("locale").flatMap { $0.isEmpty ? nil : $0 }
        if let locale, !LocaleMatcher.isValidTag(locale) {
            problems.append(FieldProblem(pointer: "?locale", detail: "must be a locale tag such as en or de-AT"))
        }
        let storefront = parameters.get("storefront").flatMap { $0.isEmpty ? nil : $0 }
        if let storefront,
            !(2...3).contains(storefront.count) || !storefront.allSatisfy({ $0.isASCII && $0.isUppercase })
        {
            problems.append(
                FieldProblem(pointer: "?storefront", detail: "must be a store's territory code such as USA or US"))
        }
        guard problems.isEmpty, let platform, let build, let version else {
            throw .invalidQuery(problems)
        }
        return CatalogQuery(
            platform: platform, build: build, appVersion: version, variant: variant, locale: locale,
            storefront: storefront)
    }
}
