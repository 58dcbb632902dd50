import HTTPTypes
import ShopkeeperHTTP

/// Subscriptions failures with their HTTP rendering. Every case is a verdict on the request: retrying it unchanged
/// gives the same answer.
enum SubscriptionsError: ProblemError, Equatable {
    /// The app's catalog has no product with this id.
    case productNotFound(String)
    /// The product (or, with `nil`, every product of the app) has no trial duration.
    case noTrial(String?)
    /// This device already had a trial, under another customer.
    case trialUsedOnDevice
    /// The customer already had a free trial or introductory offer of this subscription group at a store.
    case trialAlreadyUsed(String)

    var status: HTTPResponse.Status {
        switch self {
        case .productNotFound: .notFound
        case .noTrial: .unprocessableContent
        case .trialUsedOnDevice, .trialAlreadyUsed: .conflict
        }
    }

    var code: String {
        switch self {
        case .productNotFound: "product_not_found"
        case .noTrial: "no_trial"
        case .trialUsedOnDevice: "trial_used_on_device"
        case .trialAlreadyUsed: "trial_already_used"
        }
    }

    var detail: String {
        switch self {
        case .productNotFound(let product): "This app's catalog has no product \(product)."
        case .noTrial(let product?): "\(product) has no trial_duration in the catalog."
        case .noTrial(nil): "No product of this app's catalog has a trial_duration."
        case .trialUsedOnDevice:
            "A free trial was already used on this device (by another account); a device gets one trial."
        case .trialAlreadyUsed(let product):
            "This customer already had a free trial or introductory offer in the subscription group of \(product)."
        }
    }
}
