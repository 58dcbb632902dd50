import Foundation
import ShopkeeperModels

/// Keeps subscription timelines: applies store facts and moves subscriptions on when time passes.
protocol SubscriptionRepository: Sendable {
    /// Applies verified store facts for `appID` once; returns each touched subscription as it is now.
    func apply(_ request: SubscriptionApplyRequest, appID: String) async throws -> [SubscriptionInfo]

    /// Moves up to `limit` subscriptions whose state changed by itself (a period or grace period ended with no
    /// news) to their state now, with their events; returns how many it moved.
    func sweepDue(limit: Int) async throws -> Int
}

/// The app's own free trials.
protocol TrialRepository: Sendable {
    /// Starts the customer's trial of `productID` (or the app's trial product) on `deviceID`, or returns the one
    /// the customer already has.
    func start(appID: String, customer: TrialCustomer, deviceID: String, productID: String?) async throws
        -> InternalTrialResponse

    /// The customer's trial, or `none`.
    func trial(appID: String, customer: TrialCustomer) async throws -> TrialInfo

    /// Whether an intro offer or trial of `productID` may be offered to the customer (and device).
    func eligibility(appID: String, customer: TrialCustomer, productID: String, deviceID: String?) async throws
        -> EligibilityInfo

    /// ``eligibility(appID:customer:productID:deviceID:)`` and whether the customer had a subscription in the
    /// product's group (on any store), which promotional offers ask.
    func offerEligibility(appID: String, customer: TrialCustomer, productID: String, deviceID: String?) async throws
        -> OfferEligibility

    /// Records the end of up to `limit` trials that ended (a `trial_expired` event each); returns how many.
    func sweepEnded(limit: Int) async throws -> Int
}
