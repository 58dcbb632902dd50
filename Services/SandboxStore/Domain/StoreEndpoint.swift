import ShopkeeperStores

/// Every store endpoint the sandbox answers, under the name faults and call counters use
/// (`apple.production.transactions`, `google.products.get`, ...).
enum StoreEndpoint: String, CaseIterable, Codable, Sendable {
    case appleProductionTransactions = "apple.production.transactions"
    case appleProductionHistory = "apple.production.history"
    case appleProductionSubscriptions = "apple.production.subscriptions"
    case appleProductionLookup = "apple.production.lookup"
    /// `PUT /inApps/v1|v2/transactions/consumption/{id}` (Send Consumption Information).
    case appleProductionConsumption = "apple.production.consumption"
    /// Legacy `POST /verifyReceipt` (`VerifyReceiptController`).
    case appleProductionVerifyReceipt = "apple.production.verifyReceipt"
    /// `GET /inApps/v2/refund/lookup/{id}` (Get Refund History).
    case appleProductionRefunds = "apple.production.refunds"
    /// `POST /inApps/v1/notifications/history` (Get Notification History).
    case appleProductionNotificationHistory = "apple.production.notificationHistory"
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` (Extend a Subscription Renewal Date).
    case appleProductionExtend = "apple.production.extend"
    /// `POST /inApps/v1/notifications/test` and `GET /inApps/v1/notifications/test/{token}` (Request a Test
    /// Notification, Get Test Notification Status).
    case appleProductionTestNotification = "apple.production.testNotification"
    /// `POST /inApps/v1/subscriptions/extend/mass` and `GET .../extend/mass/{productId}/{requestIdentifier}`.
    case appleProductionMassExtend = "apple.production.massExtend"
    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken` (Set App Account Token).
    case appleProductionAppAccountToken = "apple.production.appAccountToken"
    /// `GET /inApps/v1/transactions/appTransactions/{transactionId}` (Get App Transaction Info).
    case appleProductionAppTransactions = "apple.production.appTransactions"
    /// `POST /inApps/v1/transactions/{transactionId}/finish` (Finish Transaction).
    case appleProductionFinish = "apple.production.finish"
    case appleSandboxTransactions = "apple.sandbox.transactions"
    case appleSandboxHistory = "apple.sandbox.history"
    case appleSandboxSubscriptions = "apple.sandbox.subscriptions"
    case appleSandboxLookup = "apple.sandbox.lookup"
    case appleSandboxConsumption = "apple.sandbox.consumption"
    case appleSandboxVerifyReceipt = "apple.sandbox.verifyReceipt"
    case appleSandboxRefunds = "apple.sandbox.refunds"
    case appleSandboxNotificationHistory = "apple.sandbox.notificationHistory"
    case appleSandboxExtend = "apple.sandbox.extend"
    case appleSandboxTestNotification = "apple.sandbox.testNotification"
    case appleSandboxMassExtend = "apple.sandbox.massExtend"
    case appleSandboxAppAccountToken = "apple.sandbox.appAccountToken"
    case appleSandboxAppTransactions = "apple.sandbox.appTransactions"
    case appleSandboxFinish = "apple.sandbox.finish"
    case googleToken = "google.token"
    case googleProductsGet = "google.products.get"
    case googleProductsAcknowledge = "google.products.acknowledge"
    case googleProductsConsume = "google.products.consume"
    case googleSubscriptionsV2Get = "google.subscriptionsv2.get"
    case googleSubscriptionsAcknowledge = "google.subscriptions.acknowledge"
    case googleVoidedPurchasesList = "google.voidedpurchases.list"
    /// `GET .../oneTimeProducts` (`monetization.onetimeproducts.list`, the catalog sync).
    case googleOneTimeProductsList = "google.onetimeproducts.list"
    /// `GET .../subscriptions` (`monetization.subscriptions.list`, the catalog sync).
    case googleSubscriptionsList = "google.subscriptions.list"
    /// `GET .../subscriptions/{productId}/basePlans/{basePlanId}/offers` (`monetization.subscriptions.basePlans.offers.list`).
    case googleOffersList = "google.offers.list"
    /// Stripe's API, the calls that read (`GET /stripe/v1/...`).
    case stripeRead = "stripe.read"
    /// Stripe's API, the calls that change something (`POST`, `DELETE`).
    case stripeWrite = "stripe.write"

    /// Whose error format a failure of this endpoint takes.
    enum Family: Sendable {
        case apple, googleOAuth, googleAPI, stripe
    }

    var family: Family {
        switch self {
        case .googleToken: .googleOAuth
        case .googleProductsGet, .googleProductsAcknowledge, .googleProductsConsume, .googleSubscriptionsV2Get,
            .googleSubscriptionsAcknowledge, .googleVoidedPurchasesList, .googleOneTimeProductsList,
            .googleSubscriptionsList, .googleOffersList:
            .googleAPI
        case .stripeRead, .stripeWrite: .stripe
        default: .apple
        }
    }

    /// Whether this is a legacy `verifyReceipt` endpoint, the only kind an `apple_status` fault applies to.
    var isVerifyReceipt: Bool {
        self == .appleProductionVerifyReceipt || self == .appleSandboxVerifyReceipt
    }

    /// The App Store Server API endpoints of one Apple host.
    enum AppleAPI: Sendable {
        case transactions, history, subscriptions, lookup, verifyReceipt, consumption
        case refunds, notificationHistory, extend
        case testNotification, massExtend, appAccountToken, appTransactions, finish
    }

    static func apple(_ host: AppleHost, _ api: AppleAPI) -> StoreEndpoint {
        switch (host, api) {
        case (.production, .transactions): .appleProductionTransactions
        case (.production, .history): .appleProductionHistory
        case (.production, .subscriptions): .appleProductionSubscriptions
        case (.production, .lookup): .appleProductionLookup
        case (.production, .verifyReceipt): .appleProductionVerifyReceipt
        case (.production, .consumption): .appleProductionConsumption
        case (.production, .refunds): .appleProductionRefunds
        case (.production, .notificationHistory): .appleProductionNotificationHistory
        case (.production, .extend): .appleProductionExtend
        case (.production, .testNotification): .appleProductionTestNotification
        case (.production, .massExtend): .appleProductionMassExtend
        case (.production, .appAccountToken): .appleProductionAppAccountToken
        case (.production, .appTransactions): .appleProductionAppTransactions
        case (.production, .finish): .appleProductionFinish
        case (.sandbox, .transactions): .appleSandboxTransactions
        case (.sandbox, .history): .appleSandboxHistory
        case (.sandbox, .subscriptions): .appleSandboxSubscriptions
        case (.sandbox, .lookup): .appleSandboxLookup
        case (.sandbox, .verifyReceipt): .appleSandboxVerifyReceipt
        case (.sandbox, .consumption): .appleSandboxConsumption
        case (.sandbox, .refunds): .appleSandboxRefunds
        case (.sandbox, .notificationHistory): .appleSandboxNotificationHistory
        case (.sandbox, .extend): .appleSandboxExtend
        case (.sandbox, .testNotification): .appleSandboxTestNotification
        case (.sandbox, .massExtend): .appleSandboxMassExtend
        case (.sandbox, .appAccountToken): .appleSandboxAppAccountToken
        case (.sandbox, .appTransactions): .appleSandboxAppTransactions
        case (.sandbox, .finish): .appleSandboxFinish
        }
    }
}

/// One of Apple's two hosts (`api.storekit.itunes.apple.com` and `api.storekit-sandbox.itunes.apple.com`), mounted
/// at `/apple/production` and `/apple/sandbox`. Each sees only its own environment's transactions.
enum AppleHost: String, CaseIterable, Sendable {
    case production
    case sandbox

    var environment: AppleEnvironment {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        }
    }

    /// Where the host is mounted.
    var mountPath: String { "/apple/\(rawValue)" }
}
