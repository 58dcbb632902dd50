import HTTPTypes
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// The content service's internal API (signed calls; calls go content -> entitlements, never back):
///
/// - `POST /internal/v1/content/access`: whether a customer may have products' content now, optionally counting the
///   device against the granting purchase's device limit;
/// - `POST /internal/v1/content/claims`: records a claim of a product the catalog marks free.
struct ContentAccessController {
    let repository: any ContentAccessRepository
    let maxBodyBytes: Int
    /// Most products one access call may ask about (a reset asks about every product with content).
    static let maximumProducts = 1_000

    func addRoutes(to router: Router<ServiceRequestContext>) {
        router.post("/internal/v1/content/access") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(ContentAccessRequest.self, from: request, limit: maxBodyBytes)
            try CustomerID.validate(body.appUserID, pointer: "/app_user_id")
            guard body.productIDs.count <= Self.maximumProducts else {
                throw RequestError.invalid("/product_ids", "must hold at most \(Self.maximumProducts) products")
            }
            if body.bindDevice && (body.deviceID ?? "").isEmpty {
                throw RequestError.invalid("/device_id", "is required to bind a device")
            }
            let products = try await repository.access(body, appID: caller.appID)
            return try JSONBody.response(
                ContentAccessResponse(products: products), headers: [.cacheControl: "no-store"])
        }
        router.post("/internal/v1/content/claims") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.decode(ContentClaimGrantRequest.self, from: request, limit: maxBodyBytes)
            try CustomerID.validate(body.appUserID, pointer: "/app_user_id")
            return try JSONBody.response(
                try await repository.claim(body, appID: caller.appID), headers: [.cacheControl: "no-store"])
        }
    }
}

/// Why a free claim was refused.
enum ContentClaimError: ProblemError, Equatable {
    /// The app's catalog has no product with this id.
    case productNotFound(String)
    /// The catalog does not mark the product free: it must be bought.
    case productNotFree(String)

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound: .notFound
        case .productNotFree: .forbidden
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .productNotFree: "product_not_free"
        }
    }

    var detail: String {
        switch self {
        case .productNotFound(let product): "This app's catalog has no product \(product)."
        case .productNotFree(let product): "\(product) is not free in the catalog; it must be bought."
        }
    }
}
