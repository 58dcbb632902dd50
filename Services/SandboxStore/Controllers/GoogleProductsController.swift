import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `/sandbox/google/products`: what each package sells on Play (``PlayCatalog``), as its monetization endpoints
/// answer it. `PUT` replaces a package's products (a product left out is deleted at the store); `PATCH
/// /products/{productId}` changes one product's state or prices (a subscription's base plan: `base_plan_id`, its
/// first when omitted), as a developer would in Play Console; `GET ?package_name=` lists them.
struct GoogleProductsController {
    /// A one-time product's purchase-option states.
    static let oneTimeStates: Set<String> = ["DRAFT", "ACTIVE", "INACTIVE", "INACTIVE_PUBLISHED"]
    /// Base-plan and offer states.
    static let planStates: Set<String> = ["DRAFT", "ACTIVE", "INACTIVE"]

    let catalog: PlayCatalog
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .put("products") { request, _ in
                let body = try await JSONBody.decode(PlayCatalogRequest.self, from: request, limit: maxBodyBytes)
                try Self.validate(body)
                try await catalog.replace(packageName: body.packageName, products: body.products)
                return try JSONBody.response(
                    PlayCatalogRequest(
                        packageName: body.packageName, products: await catalog.products(packageName: body.packageName)))
            }
            .get("products") { request, _ in
                let packageName = request.uri.queryParameters.get("package_name") ?? ""
                guard CreateAppleTransactionRequest.isIdentifier(packageName) else {
                    throw RequestError.invalidQuery([FieldProblem(pointer: "?package_name", detail: "is required")])
                }
                return try JSONBody.response(
                    PlayCatalogRequest(
                        packageName: packageName, products: await catalog.products(packageName: packageName)))
            }
            .patch("products/{productId}") { request, context in
                let body = try await JSONBody.decode(PlayProductChange.self, from: request, limit: maxBodyBytes)
                let productID = context.parameters.get("productId") ?? ""
                let subscription =
                    await catalog.products(packageName: body.packageName).first {
                        $0.productID == productID
                    }?.type == PlayProduct.subscription
                let states = subscription ? Self.planStates : Self.oneTimeStates
                var problems: [FieldProblem] = []
                if let state = body.state, !states.contains(state) {
                    problems.append(
                        FieldProblem(
                            pointer: "/state", detail: "must be one of \(states.sorted().joined(separator: ", "))"))
                }
                if let prices = body.prices { problems += Self.problems(of: prices, at: "/prices") }
                if body.state == nil && body.prices == nil {
                    problems.append(FieldProblem(pointer: "", detail: "must change state or prices"))
                }
                guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
                do {
                    return try JSONBody.response(
                        try await catalog.change(
                            packageName: body.packageName, productID: productID, basePlanID: body.basePlanID,
                            state: body.state, prices: body.prices))
                } catch let error as PlayCatalogError {
                    switch error {
                    case .noProduct(let id):
                        throw SandboxControlError(
                            status: .notFound, code: "product_not_found", detail: "\(body.packageName) sells no \(id)")
                    case .noBasePlan(let id):
                        throw SandboxControlError(
                            status: .notFound, code: "base_plan_not_found",
                            detail: "\(productID) has no base plan \(id)")
                    }
                }
            }
    }

    /// Every problem of a catalog at once.
    static func validate(_ body: PlayCatalogRequest) throws(RequestError) {
        var problems: [FieldProblem] = []
        if !CreateAppleTransactionRequest.isIdentifier(body.packageName) {
            problems.append(FieldProblem(pointer: "/package_name", detail: "must be a package name"))
        }
        if body.products.count > 1000 {
            problems.append(FieldProblem(pointer: "/products", detail: "must hold at most 1000 products"))
        }
        var seen: Set<String> = []
        for (index, product) in body.products.enumerated() {
            let at = "/products/\(index)"
            if !CreateAppleTransactionRequest.isIdentifier(product.productID)
                || !seen.insert(product.productID).inserted
            {
                problems.append(FieldProblem(pointer: "\(at)/product_id", detail: "must be a product id, once"))
            }
            switch product.type {
            case PlayProduct.oneTime:
                if let state = product.state, !oneTimeStates.contains(state) {
                    problems.append(FieldProblem(pointer: "\(at)/state", detail: "must be a purchase option's state"))
                }
                if product.basePlans != nil {
                    problems.append(FieldProblem(pointer: "\(at)/base_plans", detail: "is for subscriptions"))
                }
                problems += Self.problems(of: product.prices ?? [], at: "\(at)/prices")
            case PlayProduct.subscription:
                if product.state != nil || product.prices != nil || product.multiQuantity != nil {
                    problems.append(
                        FieldProblem(pointer: at, detail: "a subscription's state and prices are its base plans'"))
                }
                problems += Self.problems(of: product.basePlans ?? [], at: "\(at)/base_plans")
            default:
                problems.append(FieldProblem(pointer: "\(at)/type", detail: "must be product or subscription"))
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
    }

    /// The problems of a subscription's base plans.
    static func problems(of plans: [PlayBasePlan], at pointer: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        var seen: Set<String> = []
        for (index, plan) in plans.enumerated() {
            let at = "\(pointer)/\(index)"
            if !isPlanID(plan.basePlanID) || !seen.insert(plan.basePlanID).inserted {
                problems.append(
                    FieldProblem(
                        pointer: "\(at)/base_plan_id", detail: "must be lower-case letters, digits and hyphens, once"))
            }
            if ISODuration(plan.period) == nil {
                problems.append(FieldProblem(pointer: "\(at)/period", detail: "must be an ISO 8601 duration (P1M)"))
            }
            if let state = plan.state, !planStates.contains(state) {
                problems.append(FieldProblem(pointer: "\(at)/state", detail: "must be DRAFT, ACTIVE or INACTIVE"))
            }
            problems += Self.problems(of: plan.prices, at: "\(at)/prices")
            var offers: Set<String> = []
            for (offerIndex, offer) in (plan.offers ?? []).enumerated() {
                let offerAt = "\(at)/offers/\(offerIndex)"
                if !isPlanID(offer.offerID) || !offers.insert(offer.offerID).inserted {
                    problems.append(FieldProblem(pointer: "\(offerAt)/offer_id", detail: "must be an id, once"))
                }
                if let state = offer.state, !planStates.contains(state) {
                    problems.append(
                        FieldProblem(pointer: "\(offerAt)/state", detail: "must be DRAFT, ACTIVE or INACTIVE"))
                }
                if let trial = offer.trial, ISODuration(trial) == nil {
                    problems.append(FieldProblem(pointer: "\(offerAt)/trial", detail: "must be an ISO 8601 duration"))
                }
            }
        }
        return problems
    }

    /// The problems of a list of regional prices.
    static func problems(of prices: [PlayPrice], at pointer: String) -> [FieldProblem] {
        var problems: [FieldProblem] = []
        var regions: Set<String> = []
        for (index, price) in prices.enumerated() {
            let at = "\(pointer)/\(index)"
            if !CreateAppleTransactionRequest.isUpperLetters(price.region, count: 2)
                || !regions.insert(price.region).inserted
            {
                problems.append(FieldProblem(pointer: "\(at)/region", detail: "must be an alpha-2 code (US), once"))
            }
            if !CreateAppleTransactionRequest.isUpperLetters(price.currency, count: 3) {
                problems.append(FieldProblem(pointer: "\(at)/currency", detail: "must be an ISO 4217 code"))
            }
            if GoogleMoney(currencyCode: price.currency, decimal: price.price) == nil {
                problems.append(
                    FieldProblem(pointer: "\(at)/price", detail: "must be a decimal such as 0.99 (at most 9 decimals)"))
            }
        }
        return problems
    }

    /// Google's rule for base plan and offer ids: a lower-case letter or digit, then lower-case letters, digits and
    /// hyphens, at most 63.
    static func isPlanID(_ text: String) -> Bool {
        guard let first = text.utf8.first, (1...63).contains(text.utf8.count) else { return false }
        func allowed(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) }
        return allowed(first) && text.utf8.allSatisfy { allowed($0) || $0 == 0x2d }
    }
}

/// `PUT /sandbox/google/products` and the answers of the product controls.
struct PlayCatalogRequest: Codable, Sendable {
    var packageName: String
    var products: [PlayProduct]

    enum CodingKeys: String, CodingKey {
        case products
        case packageName = "package_name"
    }
}

/// `PATCH /sandbox/google/products/{productId}`.
struct PlayProductChange: Codable, Sendable {
    var packageName: String
    var basePlanID: String?
    var state: String?
    var prices: [PlayPrice]?

    enum CodingKeys: String, CodingKey {
        case state, prices
        case packageName = "package_name"
        case basePlanID = "base_plan_id"
    }
}
