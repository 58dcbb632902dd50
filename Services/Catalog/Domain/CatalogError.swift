import HTTPTypes
import ShopkeeperHTTP

/// Catalog failures with their HTTP rendering.
enum CatalogError: ProblemError {
    case productNotFound(String)
    case productExists(String)
    case storeProductIDTaken(platform: String, storeProductID: String)
    case invalidProduct([FieldProblem])
    /// A product a package of an offering sells cannot be deleted.
    case productInOffering(String)
    /// A store product id a package names cannot be taken from its product.
    case storeProductIDInOffering(String)
    case offeringNotFound(String)
    case offeringExists(String)
    /// An offering a targeting rule serves cannot be deleted.
    case offeringInUse(String)
    /// An app with offerings has exactly one default.
    case defaultOfferingRequired
    case invalidOffering([FieldProblem])

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound, .offeringNotFound: .notFound
        case .productExists, .storeProductIDTaken, .productInOffering, .storeProductIDInOffering, .offeringExists,
            .offeringInUse, .defaultOfferingRequired:
            .conflict
        case .invalidProduct, .invalidOffering: .unprocessableContent
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .productExists: "product_exists"
        case .storeProductIDTaken: "store_product_id_taken"
        case .invalidProduct, .invalidOffering: "validation_failed"
        case .productInOffering: "product_in_offering"
        case .storeProductIDInOffering: "store_product_id_in_offering"
        case .offeringNotFound: "offering_not_found"
        case .offeringExists: "offering_exists"
        case .offeringInUse: "offering_in_use"
        case .defaultOfferingRequired: "default_offering_required"
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
        case .productInOffering(let id):
            "The product '\(id)' is sold by a package of an offering; take it out of the offering first."
        case .storeProductIDInOffering(let id):
            "The store product id '\(id)' is named by a package of an offering; change the package first."
        case .offeringNotFound(let id): "No offering '\(id)' exists for this app."
        case .offeringExists(let id): "An offering '\(id)' already exists; use PUT to replace it."
        case .offeringInUse(let id):
            "The offering '\(id)' is served by a targeting rule; change or remove the rule first."
        case .defaultOfferingRequired:
            "An app with offerings has exactly one default offering: make another offering the default first (or create the first one with \"default\": true)."
        case .invalidOffering(let problems):
            problems.count == 1
                ? "Invalid offerings at \(problems[0].pointer): \(problems[0].detail)"
                : "The offerings have \(problems.count) invalid fields; see errors."
        }
    }

    var fieldProblems: [FieldProblem] {
        switch self {
        case .invalidProduct(let problems), .invalidOffering(let problems): problems
        default: []
        }
    }
}
