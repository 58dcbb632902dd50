import Foundation
import Hummingbird
import ShopkeeperHTTP

/// `/sandbox/apple/products`: the App Store products the sandbox sells and their prices per storefront
/// (``SandboxProducts``). `PUT` replaces them (as editing a StoreKit configuration file would); `GET ?ids=&storefront=`
/// answers them as StoreKit's `Product.products(for:)` would in that storefront.
struct AppleProductsController {
    let products: SandboxProducts
    let maxBodyBytes: Int
    /// Apple's product types.
    static let types: Set<String> = [
        "Consumable", "Non-Consumable", "Auto-Renewable Subscription", "Non-Renewing Subscription",
    ]

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .put("products") { request, _ in
                let body = try await JSONBody.decode(SandboxProductCatalog.self, from: request, limit: maxBodyBytes)
                try Self.validate(body)
                try await products.replace(body.products)
                return try JSONBody.response(SandboxProductCatalog(products: await products.all()))
            }
            .get("products") { request, _ in
                let query = request.uri.queryParameters
                let ids = (query.get("ids") ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
                let storefront = query.get("storefront") ?? "USA"
                var problems: [FieldProblem] = []
                if ids.isEmpty || ids.count > 100 {
                    problems.append(
                        FieldProblem(pointer: "?ids", detail: "must name 1 to 100 product ids, comma-separated"))
                }
                if !Self.isCode(storefront) {
                    problems.append(FieldProblem(pointer: "?storefront", detail: "must be an ISO 3166-1 alpha-3 code"))
                }
                guard problems.isEmpty else { throw RequestError.invalidQuery(problems) }
                return try JSONBody.response(
                    StorefrontProductList(products: await products.products(ids: ids, storefront: storefront)))
            }
    }

    /// Every problem of a catalog at once.
    static func validate(_ catalog: SandboxProductCatalog) throws(RequestError) {
        var problems: [FieldProblem] = []
        if catalog.products.count > 1000 {
            problems.append(FieldProblem(pointer: "/products", detail: "must hold at most 1000 products"))
        }
        var seen: Set<String> = []
        for (index, product) in catalog.products.enumerated() {
            let at = "/products/\(index)"
            if !(1...255).contains(product.productID.utf8.count) || !seen.insert(product.productID).inserted {
                problems.append(FieldProblem(pointer: "\(at)/product_id", detail: "must be 1 to 255 bytes, once"))
            }
            if !types.contains(product.type) {
                problems.append(
                    FieldProblem(
                        pointer: "\(at)/type", detail: "must be one of \(types.sorted().joined(separator: ", "))"))
            }
            if let state = product.reviewState, !AppStoreConnectAPIController.reviewStates.contains(state) {
                problems.append(
                    FieldProblem(
                        pointer: "\(at)/review_state",
                        detail:
                            "must be one of \(AppStoreConnectAPIController.reviewStates.sorted().joined(separator: ", "))"
                    ))
            }
            var storefronts: Set<String> = []
            for (priceIndex, price) in product.prices.enumerated() {
                let priceAt = "\(at)/prices/\(priceIndex)"
                if !isCode(price.storefront) || !storefronts.insert(price.storefront).inserted {
                    problems.append(
                        FieldProblem(
                            pointer: "\(priceAt)/storefront", detail: "must be an alpha-3 code, once a product"))
                }
                if !isCode(price.currency) {
                    problems.append(FieldProblem(pointer: "\(priceAt)/currency", detail: "must be an ISO 4217 code"))
                }
                if price.price < 0 {
                    problems.append(FieldProblem(pointer: "\(priceAt)/price", detail: "must not be negative"))
                }
            }
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
    }

    /// Three capital letters (an ISO 3166-1 alpha-3 or ISO 4217 code).
    static func isCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}

/// The answer of `GET /sandbox/apple/products`.
struct StorefrontProductList: Codable, Sendable {
    var products: [StorefrontProduct]
}
