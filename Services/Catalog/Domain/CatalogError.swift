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
    /// An offering a variant of an experiment serves cannot be deleted.
    case offeringInExperiment(String)
    case experimentNotFound(String)
    case experimentExists(String)
    case invalidExperiment([FieldProblem])
    /// A running experiment's variants and weights are fixed; `action` is what was refused.
    case experimentRunning(String)
    /// A stopped experiment stays stopped: it cannot be edited nor started again.
    case experimentStopped(String)
    /// Only a running experiment can be stopped.
    case experimentNotRunning(String)
    /// No catalog sync of the store (of any store: `nil`) has run for the app yet.
    case syncNotFound(String?)

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound, .offeringNotFound, .experimentNotFound, .syncNotFound: .notFound
        case .productExists, .storeProductIDTaken, .productInOffering, .storeProductIDInOffering, .offeringExists,
            .offeringInUse, .defaultOfferingRequired, .offeringInExperiment, .experimentExists, .experimentRunning,
            .experimentStopped, .experimentNotRunning:
            .conflict
        case .invalidProduct, .invalidOffering, .invalidExperiment: .unprocessableContent
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .productExists: "product_exists"
        case .storeProductIDTaken: "store_product_id_taken"
        case .invalidProduct, .invalidOffering, .invalidExperiment: "validation_failed"
        case .productInOffering: "product_in_offering"
        case .storeProductIDInOffering: "store_product_id_in_offering"
        case .offeringNotFound: "offering_not_found"
        case .offeringExists: "offering_exists"
        case .offeringInUse: "offering_in_use"
        case .defaultOfferingRequired: "default_offering_required"
        case .offeringInExperiment: "offering_in_experiment"
        case .experimentNotFound: "experiment_not_found"
        case .experimentExists: "experiment_exists"
        case .experimentRunning: "experiment_running"
        case .experimentStopped: "experiment_stopped"
        case .experimentNotRunning: "experiment_not_running"
        case .syncNotFound: "sync_not_found"
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
        case .offeringInExperiment(let id):
            "The offering '\(id)' is a variant of an experiment; its results name it, so it cannot be deleted."
        case .experimentNotFound(let id): "No experiment '\(id)' exists for this app."
        case .experimentExists(let id): "An experiment '\(id)' already exists; experiment ids are never reused."
        case .invalidExperiment(let problems):
            problems.count == 1
                ? "Invalid experiment at \(problems[0].pointer): \(problems[0].detail)"
                : "The experiment has \(problems.count) invalid fields; see errors."
        case .experimentRunning(let id):
            "The experiment '\(id)' is running: its variants and weights cannot change. Stop it and start another."
        case .experimentStopped(let id):
            "The experiment '\(id)' is stopped, for good: create another experiment to continue it."
        case .experimentNotRunning(let id): "The experiment '\(id)' is not running: only a running one is stopped."
        case .syncNotFound(let store):
            "No catalog sync\(store.map { " of \($0)" } ?? "") has run for this app yet: POST /v1/admin/catalog/sync."
        }
    }

    var fieldProblems: [FieldProblem] {
        switch self {
        case .invalidProduct(let problems), .invalidOffering(let problems), .invalidExperiment(let problems): problems
        default: []
        }
    }
}
