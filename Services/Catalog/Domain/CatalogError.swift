import HTTPTypes
import ShopkeeperHTTP

/// Catalog failures with their HTTP rendering.
enum CatalogError: ProblemError {
    case productNotFound(String)
    case productExists(String)
    case storeProductIDTaken(platform: String, storeProductID: String)
    case invalidProduct([FieldProblem])

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound: .notFound
        case .productExists, .storeProductIDTaken: .conflict
        case .invalidProduct: .unprocessableContent
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .productExists: "product_exists"
        case .storeProductIDTaken: "store_product_id_taken"
        case .invalidProduct: "validation_failed"
        }
    }

    var detail: String {
        switch self {
        case .productNotFound(let id): "No product '\(id)' exists in this app's catalog."
        case .productExists(let id): "A product '\(id)' already exists; use PUT to replace it."
        case .storeProductIDTaken(let platform, let id):
            "The \(platform) product id '\(id)' already belongs to another product of this app."
        case .invalidProduct(let problems):
            problems.count == 1
                ? "Invalid product at \(problems[0].pointer): \(problems[0].detail)"
                : "The catalog has \(problems.count) invalid fields; see errors."
        }
    }

    var fieldProblems: [FieldProblem] {
        if case .invalidProduct(let problems) = self { return problems }
        return []
    }
}
