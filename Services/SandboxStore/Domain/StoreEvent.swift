import Foundation
import ShopkeeperStores

/// A notification the sandbox owes a store's receiver, with the records as they were when it happened (signed
/// later, by ``NotificationDispatcher``).
enum StoreEvent: Sendable {
    case apple(AppleEvent)
    case google(GoogleEvent)
    /// A Stripe event, POSTed as its JSON with a `Stripe-Signature`.
    case stripe(StripeEventRecord)
}

/// An App Store Server Notification V2 to send.
struct AppleEvent: Sendable {
    var type: AppleNotificationType
    var subtype: AppleNotificationSubtype?
    /// Signed as `signedTransactionInfo`.
    var transaction: AppleTransactionRecord?
    /// The subscription's latest transaction: its renewal info is signed as `signedRenewalInfo`, its status is
    /// `status`.
    var latest: AppleTransactionRecord?
    /// The product the subscription renews into when the customer downgraded.
    var renewsInto: String?
    var bundleId: String
    var environment: AppleEnvironment
    var appAppleId: Int64?
    var bundleVersion: String?
    var consumptionRequestReason: String?
    /// `RESCIND_CONSENT`: the app transaction signed into `appData` (the notification then has no `data`).
    var appTransaction: AppleAppTransactionRecord?
    /// `EXTERNAL_PURCHASE_TOKEN`: the token sent as `externalPurchaseToken` (no `data`).
    var externalPurchaseToken: AppleNotificationPayload.ExternalPurchaseToken?
    /// `RENEWAL_EXTENSION` `SUMMARY`: the outcome of a mass extension, sent as `summary` (no `data`).
    var summary: AppleNotificationPayload.Summary?
    var date: Date

    init(
        _ type: AppleNotificationType, _ subtype: AppleNotificationSubtype? = nil, transaction: AppleTransactionRecord?,
        latest: AppleTransactionRecord? = nil, renewsInto: String? = nil, at date: Date
    ) {
        self.type = type
        self.subtype = subtype
        self.transaction = transaction
        self.latest = latest
        self.renewsInto = renewsInto
        self.bundleId = transaction?.bundleId ?? ""
        self.environment = transaction?.environment ?? .sandbox
        self.appAppleId = transaction?.appAppleId
        self.bundleVersion = transaction?.appVersion
        self.date = date
    }

    /// `RESCIND_CONSENT`: the customer of `appTransaction` withdrew consent (Apple sends it for apps in the EU
    /// that asked for it).
    static func rescindConsent(_ appTransaction: AppleAppTransactionRecord, at date: Date) -> AppleEvent {
        var event = AppleEvent(
            .rescindConsent, bundleId: appTransaction.bundleId, environment: appTransaction.environment, at: date)
        event.appAppleId = appTransaction.appAppleId
        event.appTransaction = appTransaction
        return event
    }

    /// `EXTERNAL_PURCHASE_TOKEN` (`UNREPORTED` when the token's report is overdue): the environment is in the
    /// token's id, which starts with `SANDBOX` outside production.
    static func externalPurchaseToken(
        _ token: AppleNotificationPayload.ExternalPurchaseToken, environment: AppleEnvironment, at date: Date
    ) -> AppleEvent {
        var event = AppleEvent(
            .externalPurchaseToken, bundleId: token.bundleId ?? "", environment: environment, at: date)
        event.subtype = .unreported
        event.appAppleId = token.appAppleId
        event.externalPurchaseToken = token
        return event
    }

    /// A notification about no transaction (`TEST`).
    init(_ type: AppleNotificationType, bundleId: String, environment: AppleEnvironment, at date: Date) {
        self.init(type, transaction: nil, at: date)
        self.bundleId = bundleId
        self.environment = environment
    }
}

/// A Play real-time developer notification to push.
struct GoogleEvent: Sendable {
    var notification: GoogleDeveloperNotification
    /// For the delivery log: `SUBSCRIPTION_RENEWED`, `ONE_TIME_PRODUCT_PURCHASED`, `VOIDED_PURCHASE`, `TEST`, ...
    var name: String
    var purchaseToken: String?

    /// A subscription notification about `record`.
    static func subscription(_ type: GoogleSubscriptionNotificationType, _ record: GooglePurchaseRecord, at date: Date)
        -> GoogleEvent
    {
        GoogleEvent(
            notification: GoogleDeveloperNotification(
                packageName: record.packageName, eventTimeMillis: String(date.appleMilliseconds),
                subscriptionNotification: GoogleDeveloperNotification.SubscriptionNotification(
                    notificationType: type.rawValue, purchaseToken: record.purchaseToken,
                    subscriptionId: record.productId)),
            name: "SUBSCRIPTION_" + type.name, purchaseToken: record.purchaseToken)
    }

    /// A one-time product notification about `record`.
    static func oneTime(_ type: GoogleOneTimeProductNotificationType, _ record: GooglePurchaseRecord, at date: Date)
        -> GoogleEvent
    {
        GoogleEvent(
            notification: GoogleDeveloperNotification(
                packageName: record.packageName, eventTimeMillis: String(date.appleMilliseconds),
                oneTimeProductNotification: GoogleDeveloperNotification.OneTimeProductNotification(
                    notificationType: type.rawValue, purchaseToken: record.purchaseToken, sku: record.productId)),
            name: type == .purchased ? "ONE_TIME_PRODUCT_PURCHASED" : "ONE_TIME_PRODUCT_CANCELED",
            purchaseToken: record.purchaseToken)
    }

    /// A voided-purchase notification: `record` was refunded in full, or some of its units (`refundType`
    /// ``GoogleRefundType/quantityBasedPartialRefund``: the notification does not say how many; the purchase's
    /// `refundableQuantity` and the voided-purchases list do).
    static func voided(_ record: GooglePurchaseRecord, at date: Date, refundType: GoogleRefundType = .fullRefund)
        -> GoogleEvent
    {
        GoogleEvent(
            notification: GoogleDeveloperNotification(
                packageName: record.packageName, eventTimeMillis: String(date.appleMilliseconds),
                voidedPurchaseNotification: GoogleDeveloperNotification.VoidedPurchaseNotification(
                    purchaseToken: record.purchaseToken, orderId: record.orderId,
                    productType: (record.kind == .subscription
                        ? GoogleVoidedProductType.subscription : .oneTime).rawValue,
                    refundType: refundType.rawValue)),
            name: "VOIDED_PURCHASE", purchaseToken: record.purchaseToken)
    }

    /// The Play Console's test notification.
    static func test(packageName: String, at date: Date) -> GoogleEvent {
        GoogleEvent(
            notification: GoogleDeveloperNotification(
                packageName: packageName, eventTimeMillis: String(date.appleMilliseconds), testNotification: .init()),
            name: "TEST", purchaseToken: nil)
    }
}

extension GoogleSubscriptionNotificationType {
    /// Google's name without the `SUBSCRIPTION_` prefix (`RENEWED`, `IN_GRACE_PERIOD`, ...).
    var name: String {
        switch self {
        case .recovered: "RECOVERED"
        case .renewed: "RENEWED"
        case .canceled: "CANCELED"
        case .purchased: "PURCHASED"
        case .onHold: "ON_HOLD"
        case .inGracePeriod: "IN_GRACE_PERIOD"
        case .restarted: "RESTARTED"
        case .priceChangeConfirmed: "PRICE_CHANGE_CONFIRMED"
        case .deferred: "DEFERRED"
        case .paused: "PAUSED"
        case .pauseScheduleChanged: "PAUSE_SCHEDULE_CHANGED"
        case .revoked: "REVOKED"
        case .expired: "EXPIRED"
        case .itemsChanged: "ITEMS_CHANGED"
        case .cancellationScheduled: "CANCELLATION_SCHEDULED"
        case .priceChangeUpdated: "PRICE_CHANGE_UPDATED"
        case .pendingPurchaseCanceled: "PENDING_PURCHASE_CANCELED"
        case .priceStepUpConsentUpdated: "PRICE_STEP_UP_CONSENT_UPDATED"
        }
    }
}
