import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Product administration for the caller's own app (secret key): CRUD, and import/export of the whole catalog.
struct ProductAdminController {
    let repository: any ProductRepository
    let cache: CatalogCache
    let maxBodyBytes: Int
    /// Imports may be larger than ordinary bodies: a whole catalog with every localization.
    let maxImportBytes: Int

    /// Routes under `/v1/admin/products`.
    var productEndpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            let snapshot = try await repository.snapshot(appID: caller.appID)
            return try JSONBody.response(Self.sorted(snapshot))
        }
        routes.post { request, context in
            let caller = try context.requireSecretCaller()
            let product = try await JSONBody.decode(Product.self, from: request, limit: maxBodyBytes)
            try Self.validate(product)
            _ = try await repository.create(appID: caller.appID, product: product)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(product, status: .created)
        }
        routes.get(":product_id") { _, context in
            let caller = try context.requireSecretCaller()
            let productID = try context.parameters.require("product_id")
            return try JSONBody.response(try await repository.product(appID: caller.appID, productID: productID))
        }
        routes.put(":product_id") { request, context in
            let caller = try context.requireSecretCaller()
            let productID = try context.parameters.require("product_id")
            let product = try await JSONBody.decode(Product.self, from: request, limit: maxBodyBytes)
            guard product.productID == productID else {
                throw RequestError.invalid("/product_id", "must equal the product id in the path ('\(productID)')")
            }
            try Self.validate(product)
            let result = try await repository.upsert(appID: caller.appID, product: product)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(product, status: result.created ? .created : .ok)
        }
        routes.delete(":product_id") { _, context in
            let caller = try context.requireSecretCaller()
            let productID = try context.parameters.require("product_id")
            _ = try await repository.delete(appID: caller.appID, productID: productID)
            cache.invalidate(appID: caller.appID)
            return Response(status: .noContent)
        }
        return routes
    }

    /// Routes under `/v1/admin/catalog`: the whole catalog as one document.
    var catalogEndpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            return try JSONBody.response(Self.sorted(try await repository.snapshot(appID: caller.appID)))
        }
        routes.put { request, context in
            let caller = try context.requireSecretCaller()
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let document = try await JSONBody.decode(CatalogDocument.self, from: request, limit: maxImportBytes)
            let problems = ProductValidator.problems(of: document)
            guard problems.isEmpty else { throw CatalogError.invalidProduct(problems) }
            let result = try await repository.replaceAll(
                appID: caller.appID, products: document.products, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(result)
        }
        return routes
    }

    private static func validate(_ product: Product) throws(CatalogError) {
        let problems = ProductValidator.problems(of: product)
        guard problems.isEmpty else { throw .invalidProduct(problems) }
    }

    private static func sorted(_ snapshot: CatalogSnapshot) -> CatalogDocument {
        CatalogDocument(
            products: snapshot.products.sorted { ($0.sortOrder, $0.productID) < ($1.sortOrder, $1.productID) }
        )
    }
}
