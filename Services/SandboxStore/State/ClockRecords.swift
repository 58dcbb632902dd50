import Foundation
import ShopkeeperModels

/// How the sandbox's clock moves one App Store auto-renewable subscription on, kept per original transaction id.
/// Only subscriptions with a schedule are moved by the clock: those bought live (expiry in the future) and those a
/// control touched.
struct AppleRenewalSchedule: Codable, Sendable, Equatable {
    /// The length of one period in milliseconds (already compressed by the time scale).
    var periodMilliseconds: Int64
    /// Billing fails at every renewal attempt until it is set back (`POST .../billing {"fails": false}` recovers).
    var billingFails: Bool
    /// The product the subscription renews into at its next renewal when the customer downgraded.
    var renewsInto: String?
    /// UNIX ms at which the App Store stops retrying a failed billing (set when billing first fails).
    var billingRetryEndsAt: Int64?
    /// `GRACE_PERIOD_EXPIRED` was sent for the current billing failure.
    var graceExpiredAnnounced: Bool
    /// The subscription ended (`EXPIRED` sent, or refunded/revoked): the clock leaves it alone.
    var ended: Bool
    /// UNIX ms of the renewal-date extensions the App Store Server API made in the past year (Apple allows two).
    var extendedAt: [Int64]?

    init(periodMilliseconds: Int64) {
        self.periodMilliseconds = max(1000, periodMilliseconds)
        billingFails = false
        graceExpiredAnnounced = false
        ended = false
    }
}

/// An app's subscription settings in the sandbox (as in App Store Connect or the Play Console): grace period, how
/// long billing is retried (Apple) and account hold (Google). Real durations; the time scale compresses them.
struct StoreAppSettings: Codable, Sendable, Equatable {
    /// `nil`: no grace period (the stores' default).
    var gracePeriod: ISODuration?
    /// Apple: 60 days.
    var billingRetryPeriod: ISODuration?
    /// Google: 30 days.
    var accountHold: ISODuration?

    static let appleBillingRetry = ISODuration("P60D")
    static let googleAccountHold = ISODuration("P30D")

    enum CodingKeys: String, CodingKey {
        case gracePeriod = "grace_period"
        case billingRetryPeriod = "billing_retry_period"
        case accountHold = "account_hold"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(gracePeriod, forKey: .gracePeriod)
        try container.encode(billingRetryPeriod, forKey: .billingRetryPeriod)
        try container.encode(accountHold, forKey: .accountHold)
    }
}

extension ISODuration {
    /// This duration in milliseconds from `reference`, divided by `scale`.
    func milliseconds(scaledBy scale: Double, from reference: Date = Date()) -> Int64 {
        let seconds = added(to: reference).timeIntervalSince(reference)
        return Int64((seconds * 1000 / scale).rounded())
    }
}
