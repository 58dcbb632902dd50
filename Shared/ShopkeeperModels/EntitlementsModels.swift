import Foundation

/// Why verified transactions are being applied; recorded on events and in logs.
package enum ApplySource: String, Codable, Sendable, CaseIterable {
    /// `POST /v1/purchases`.
    case purchase
    /// `POST /v1/customers/{app_user_id}/restore`.
    case restore
    /// `POST /v1/receipts/validate` found news (a refund) about recorded transactions.
    case validation
    /// The verifier's background retry of facts whose apply did not finish.
    case retry
    /// A store notification.
    case notification
    /// The verifier's reconciliation job asked the store about a subscription that looked stale.
    case reconciliation
}

/// `POST /internal/v1/apply` (verifier to entitlements): verified, recorded transactions to apply for the app of
/// the signed caller.
package struct ApplyRequest: Codable, Sendable, Equatable {
    /// Who presented the proof. `nil` (validation, notifications) applies news to purchases already owned only.
    package var appUserID: String?
    package var deviceID: String?
    package var source: ApplySource
    package var transactions: [StoreTransaction]
    /// The app version the proof was presented from (the purchase request's `app_version`), kept with a purchase
    /// recorded for the first time.
    package var appVersion: String?

    package init(
        appUserID: String?, deviceID: String?, source: ApplySource, transactions: [StoreTransaction],
        appVersion: String? = nil
    ) {
        self.appUserID = appUserID
        self.deviceID = deviceID
        self.source = source
        self.transactions = transactions
        self.appVersion = appVersion
    }

    package enum CodingKeys: String, CodingKey {
        case source, transactions
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case appVersion = "app_version"
    }
}

/// What applying one transaction did.
package enum ApplyOutcome: String, Codable, Sendable, CaseIterable {
    /// A new purchase that grants its product's entitlements.
    case granted
    /// A consumable purchase credited to the balance.
    case credited
    /// Applied before; nothing changed.
    case alreadyApplied = "already_applied"
    /// The purchase moved to this customer from another (the app's transfer policy allows it).
    case transferred
    /// A subscription purchase, recorded; it grants nothing until the subscriptions service tracks it.
    case subscriptionRecorded = "subscription_recorded"
    /// The store product is not in the catalog: recorded, nothing granted until the catalog has it and the
    /// purchase is presented again.
    case unknownProduct = "unknown_product"
    /// The store took the purchase back: its grants ended and its unspent units were clawed back.
    case revoked
    /// The store refunded some units of a multi-quantity purchase (Google Play's quantity-based partial refund): the
    /// purchase stays, and the units those stand for were clawed back from the balance (down to zero at most).
    case partiallyRefunded = "partially_refunded"
    /// The store reversed the purchase's refund or revocation: its grants stand again and its units were credited
    /// back.
    case reinstated
    /// News about a purchase no customer owns yet (no presenter): nothing to apply.
    case notOwned = "not_owned"
    /// A restore presented a purchase whose `appAccountToken` names another account, one that logged in (or one
    /// this server does not know): not applied. The app can ask the person to log in to that account.
    case ownedByOtherAccount = "owned_by_other_account"
}

/// One transaction's outcome.
package struct TransactionOutcome: Codable, Sendable, Equatable {
    package var store: StorePlatform
    package var transactionID: String
    /// The catalog product, when the store product is known.
    package var productID: String?
    package var outcome: ApplyOutcome

    package init(store: StorePlatform, transactionID: String, productID: String?, outcome: ApplyOutcome) {
        self.store = store
        self.transactionID = transactionID
        self.productID = productID
        self.outcome = outcome
    }

    package enum CodingKeys: String, CodingKey {
        case store, outcome
        case transactionID = "transaction_id"
        case productID = "product_id"
    }
}

/// The answer of `POST /internal/v1/apply`.
package struct ApplyResponse: Codable, Sendable, Equatable {
    /// The presenter's customer info after everything was committed; `nil` when there was no presenter.
    package var customer: CustomerInfo?
    package var outcomes: [TransactionOutcome]

    package init(customer: CustomerInfo?, outcomes: [TransactionOutcome]) {
        self.customer = customer
        self.outcomes = outcomes
    }
}

/// What a verified StoreKit 2 app transaction says, as the verifier hands it to entitlements.
package struct AppTransactionFacts: Codable, Sendable, Equatable {
    /// Apple's `appTransactionId`: one per Apple account and app.
    package var appTransactionID: String
    package var environment: StoreEnvironment
    /// The app variant whose bundle id signed it (the app's Apple settings name them); `nil` for the app's own.
    package var variant: String?
    /// The app version (`CFBundleVersion`) the Apple account first got the app at.
    package var originalApplicationVersion: String?
    package var originalPurchaseDate: Date?

    package init(
        appTransactionID: String, environment: StoreEnvironment, variant: String? = nil,
        originalApplicationVersion: String? = nil, originalPurchaseDate: Date? = nil
    ) {
        self.appTransactionID = appTransactionID
        self.environment = environment
        self.variant = variant
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
    }

    package enum CodingKeys: String, CodingKey {
        case environment, variant
        case appTransactionID = "app_transaction_id"
        case originalApplicationVersion = "original_application_version"
        case originalPurchaseDate = "original_purchase_date"
    }
}

/// `POST /internal/v1/app-transactions`: a customer presented an app transaction.
package struct AppTransactionApplyRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    /// A purchase request or a restore: only a restore moves an app transaction back to a customer it left.
    package var source: ApplySource
    package var appTransaction: AppTransactionFacts

    package init(appUserID: String, source: ApplySource, appTransaction: AppTransactionFacts) {
        self.appUserID = appUserID
        self.source = source
        self.appTransaction = appTransaction
    }

    package enum CodingKeys: String, CodingKey {
        case source
        case appUserID = "app_user_id"
        case appTransaction = "app_transaction"
    }
}

/// What `POST /internal/v1/app-transactions` did, and the customer's info after it.
package struct AppTransactionApplyResponse: Codable, Sendable, Equatable {
    package var outcome: AppTransactionOutcome
    package var customer: CustomerInfo

    package init(outcome: AppTransactionOutcome, customer: CustomerInfo) {
        self.outcome = outcome
        self.customer = customer
    }
}

/// What presenting an app transaction did.
package enum AppTransactionOutcome: String, Codable, Sendable, CaseIterable {
    /// The customer presented it for the first time.
    case recorded
    /// The customer had presented it before; nothing changed.
    case alreadyRecorded = "already_recorded"
    /// It moved to this customer from another (the app's transfer policy allows it).
    case transferred
}
