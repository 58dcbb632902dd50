import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Offerings and targeting rules of the caller's own app (secret key). Every write takes `?dry_run=true`: it is then
/// checked as the write would be, SQL's own rules included, and nothing changes.
struct OfferingAdminController {
    let repository: any OfferingRepository
    let cache: CatalogCache
    let maxBodyBytes: Int

    /// Routes under `/v1/admin/offerings`.
    var offeringEndpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            let snapshot = try await fresh(appID: caller.appID)
            return try JSONBody.response(OfferingsDocument(offerings: snapshot.offerings, rules: snapshot.rules))
        }
        routes.put { request, context in
            let caller = try context.requireSecretCaller()
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let document = try await JSONBody.decode(OfferingsDocument.self, from: request, limit: maxBodyBytes)
            let products = try await products(appID: caller.appID)
            let problems = OfferingValidator.problems(of: document, products: products)
            guard problems.isEmpty else { throw CatalogError.invalidOffering(problems) }
            let result = try await repository.replaceAll(appID: caller.appID, document: document, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(result)
        }
        routes.post { request, context in
            let caller = try context.requireSecretCaller()
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let offering = try await validated(request, appID: caller.appID)
            _ = try await repository.create(appID: caller.appID, offering: offering, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(offering, status: .created)
        }
        routes.get(":offering_id") { _, context in
            let caller = try context.requireSecretCaller()
            let offeringID = try context.parameters.require("offering_id")
            let snapshot = try await fresh(appID: caller.appID)
            guard let offering = snapshot.offerings.first(where: { $0.offeringID == offeringID }) else {
                throw CatalogError.offeringNotFound(offeringID)
            }
            return try JSONBody.response(offering)
        }
        routes.put(":offering_id") { request, context in
            let caller = try context.requireSecretCaller()
            let offeringID = try context.parameters.require("offering_id")
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let offering = try await validated(request, appID: caller.appID)
            guard offering.offeringID == offeringID else {
                throw RequestError.invalid("/offering_id", "must equal the offering id in the path ('\(offeringID)')")
            }
            let result = try await repository.upsert(appID: caller.appID, offering: offering, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(offering, status: result.created ? .created : .ok)
        }
        routes.delete(":offering_id") { request, context in
            let caller = try context.requireSecretCaller()
            let offeringID = try context.parameters.require("offering_id")
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            _ = try await repository.delete(appID: caller.appID, offeringID: offeringID, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return Response(status: .noContent)
        }
        return routes
    }

    /// Routes under `/v1/admin/offering-rules`: the ordered rules as one list.
    var ruleEndpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            return try JSONBody.response(TargetingRules(rules: try await fresh(appID: caller.appID).rules))
        }
        routes.put { request, context in
            let caller = try context.requireSecretCaller()
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let body = try await JSONBody.decode(TargetingRules.self, from: request, limit: maxBodyBytes)
            let snapshot = try await fresh(appID: caller.appID)
            let problems = OfferingValidator.problems(
                of: body.rules, offerings: Set(snapshot.offerings.map(\.offeringID)))
            guard problems.isEmpty else { throw CatalogError.invalidOffering(problems) }
            let result = try await repository.replaceRules(appID: caller.appID, rules: body.rules, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(result)
        }
        return routes
    }

    /// The request's offering, checked against the app's products.
    private func validated(_ request: Request, appID: String) async throws -> Offering {
        let offering = try await JSONBody.decode(Offering.self, from: request, limit: maxBodyBytes)
        let problems = OfferingValidator.problems(of: offering, products: try await products(appID: appID))
        guard problems.isEmpty else { throw CatalogError.invalidOffering(problems) }
        return offering
    }

    /// The app's products by id, as the database has them now.
    private func products(appID: String) async throws -> [String: Product] {
        let snapshot = try await fresh(appID: appID)
        return Dictionary(snapshot.products.map { ($0.productID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The app's snapshot as the database has it now (an admin reads what any replica just wrote).
    private func fresh(appID: String) async throws -> CatalogSnapshot {
        cache.invalidate(appID: appID)
        return try await cache.snapshot(appID: appID)
    }
}
