import Foundation
import Hummingbird
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// The app's content routes (public or secret key):
///
/// - `GET /v1/content/{product_id}?app_user_id=&device_id=&app_version=`: the manifest of the newest version the
///   app may use, when the customer is entitled to the product now;
/// - `POST /v1/content/{product_id}/claim`: a free product, checked against the catalog, granted, and its manifest;
/// - `POST /v1/customers/{app_user_id}/content/reset`: forgets a device's downloads and answers fresh manifests of
///   everything the customer owns.
struct ManifestController {
    let delivery: ContentDelivery
    let repository: any ContentRepository
    let maxBodyBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("/v1/content/:product_id", use: manifest)
        routes.post("/v1/content/:product_id/claim", use: claim)
        routes.post("/v1/customers/:app_user_id/content/reset", use: reset)
        return routes
    }

    @Sendable func manifest(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let product = try Self.productID(context)
        let query = request.uri.queryParameters
        var problems: [FieldProblem] = []
        let user = AppUserID.validated(query.get("app_user_id"), pointer: "?app_user_id", problems: &problems) ?? ""
        let device = Self.identifier(query.get("device_id"), name: "device_id", problems: &problems)
        var appVersion: AppVersion?
        if let text = query.get("app_version") {
            appVersion = AppVersion(text)
            if appVersion == nil {
                problems.append(FieldProblem(pointer: "?app_version", detail: "must look like 1.2.3"))
            }
        }
        guard problems.isEmpty else { throw RequestError.invalidQuery(problems) }
        // In `signed` mode the gateway forwards the customer the token proved; the query must name that one.
        try context.requireCustomer(user)
        let versions = try await repository.versions(appID: caller.appID, productID: product)
        guard !versions.isEmpty else { throw ContentError.contentNotFound(product) }
        let source = try await delivery.requireAccess(
            appID: caller.appID, appUserID: user, deviceID: device, product: product, requestID: context.requestID)
        let version = try ContentDelivery.choose(versions, appVersion: appVersion, product: product)
        let manifest = try await delivery.manifest(
            version, appID: caller.appID, appUserID: user, deviceID: device, source: source)
        return try JSONBody.response(manifest, headers: [.cacheControl: "no-store"])
    }

    @Sendable func claim(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let product = try Self.productID(context)
        var body = try await JSONBody.decode(ContentClaimRequest.self, from: request, limit: maxBodyBytes)
        var problems: [FieldProblem] = []
        body.appUserID =
            AppUserID.validated(body.appUserID, pointer: "/app_user_id", problems: &problems) ?? body.appUserID
        _ = Self.identifier(body.deviceID, name: "/device_id", problems: &problems)
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        try context.requireCustomer(body.appUserID)
        // The catalog decides, never the client: only a product it marks free may be claimed.
        guard let catalogProduct = try await repository.catalogProduct(appID: caller.appID, productID: product) else {
            throw ContentError.productNotFound(product)
        }
        guard catalogProduct.free else { throw ContentError.productNotFree(product) }
        let versions = try await repository.versions(appID: caller.appID, productID: product)
        let version = try ContentDelivery.choose(versions, appVersion: body.appVersion, product: product)
        do {
            _ = try await delivery.entitlements.claimFreeContent(
                ContentClaimGrantRequest(appUserID: body.appUserID, productID: product), appID: caller.appID,
                requestID: context.requestID)
        } catch is InternalCallError {
            throw ContentError.entitlementsUnavailable
        }
        let source = try await delivery.requireAccess(
            appID: caller.appID, appUserID: body.appUserID, deviceID: body.deviceID, product: product,
            requestID: context.requestID)
        let manifest = try await delivery.manifest(
            version, appID: caller.appID, appUserID: body.appUserID, deviceID: body.deviceID, source: source)
        return try JSONBody.response(manifest, headers: [.cacheControl: "no-store"])
    }

    @Sendable func reset(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, user) = try context.requireCallerAndCustomer()
        let body = try await JSONBody.decode(ContentResetRequest.self, from: request, limit: maxBodyBytes)
        var problems: [FieldProblem] = []
        _ = Self.identifier(body.deviceID, name: "/device_id", problems: &problems)
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        let forgotten = try await repository.reset(appID: caller.appID, appUserID: user, deviceID: body.deviceID)
        let products = try await repository.productsWithContent(appID: caller.appID)
        let access = try await delivery.access(
            appID: caller.appID, appUserID: user, deviceID: body.deviceID, products: products,
            requestID: context.requestID)
        var manifests: [ContentManifest] = []
        for answer in access {
            guard let source = try? ContentDelivery.source(of: answer) else { continue }
            let versions = try await repository.versions(appID: caller.appID, productID: answer.productID)
            guard
                let version = try? ContentDelivery.choose(
                    versions, appVersion: body.appVersion, product: answer.productID)
            else { continue }
            manifests.append(
                try await delivery.manifest(
                    version, appID: caller.appID, appUserID: user, deviceID: body.deviceID, source: source))
        }
        return try JSONBody.response(
            ContentResetResponse(appUserID: user, deviceID: body.deviceID, forgotten: forgotten, manifests: manifests),
            headers: [.cacheControl: "no-store"])
    }

    /// The path's product id; a product id that could never have content is not found.
    static func productID(_ context: ServiceRequestContext) throws -> String {
        let product = try context.parameters.require("product_id")
        guard ContentName.isValid(product) else { throw ContentError.contentNotFound(product) }
        return product
    }

    /// A device id: 1 to 256 characters on one line.
    static func identifier(_ value: String?, name: String, problems: inout [FieldProblem]) -> String {
        guard let value, !value.isEmpty, value.count <= 256, !value.contains(where: \.isNewline) else {
            let pointer = name.hasPrefix("/") ? name : "?\(name)"
            problems.append(FieldProblem(pointer: pointer, detail: "is required: 1 to 256 characters on one line"))
            return ""
        }
        return value
    }
}
