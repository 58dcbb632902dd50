import HTTPTypes
import ShopkeeperHTTP

/// Why a claim of a product was refused.
enum ProductClaimError: ProblemError, Equatable {
    /// The app's catalog has no product with this id.
    case productNotFound(String)
    /// The catalog does not mark the product free: it must be bought.
    case productNotFree(String)
    /// The customer owned the product without a purchase once, and that grant was revoked.
    case revoked(String)

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound: .notFound
        case .productNotFree, .revoked: .forbidden
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .productNotFree: "product_not_free"
        case .revoked: "product_grant_revoked"
        }
    }

    var detail: String {
        switch self {
        case .productNotFound(let product): "This app's catalog has no product \(product)."
        case .productNotFree(let product): "\(product) is not free in the catalog; it must be bought."
        case .revoked(let product): "The customer's grant of \(product) was revoked; it is not granted again."
        }
    }
}
