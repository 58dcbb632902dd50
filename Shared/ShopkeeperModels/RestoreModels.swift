/// `POST /v1/customers/{app_user_id}/restore`: every proof the app holds, in any mix of forms.
package struct RestoreRequest: Codable, Sendable, Equatable {
    package var deviceID: String?
    package var appVersion: String?
    /// The StoreKit 1 app receipt (all its transactions).
    package var receiptData: String?
    /// StoreKit 2 signed transactions (`Transaction.currentEntitlements`, `Transaction.all`).
    package var signedTransactions: [String]?
    /// Google Play purchases (`queryPurchasesAsync`).
    package var purchaseTokens: [PlayPurchaseProof]?
    /// StoreKit 2's `AppTransaction.shared` JWS: that this Apple ID got the app (which variant, from which version).
    package var signedAppTransaction: String?

    package init(
        deviceID: String? = nil, appVersion: String? = nil, receiptData: String? = nil,
        signedTransactions: [String]? = nil, purchaseTokens: [PlayPurchaseProof]? = nil,
        signedAppTransaction: String? = nil
    ) {
        self.deviceID = deviceID
        self.appVersion = appVersion
        self.receiptData = receiptData
        self.signedTransactions = signedTransactions
        self.purchaseTokens = purchaseTokens
        self.signedAppTransaction = signedAppTransaction
    }

    package enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case appVersion = "app_version"
        case receiptData = "receipt_data"
        case signedTransactions = "signed_transactions"
        case purchaseTokens = "purchase_tokens"
        case signedAppTransaction = "signed_app_transaction"
    }
}

/// One Google Play purchase to restore.
package struct PlayPurchaseProof: Codable, Sendable, Equatable {
    package var purchaseToken: String
    package var productID: String
    package var purchaseKind: PlayPurchaseKind?

    package init(purchaseToken: String, productID: String, purchaseKind: PlayPurchaseKind? = nil) {
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.purchaseKind = purchaseKind
    }

    package enum CodingKeys: String, CodingKey {
        case purchaseToken = "purchase_token"
        case productID = "product_id"
        case purchaseKind = "purchase_kind"
    }
}

/// The answer of a restore: what was restored, the proofs that did not verify, and the customer now.
package struct RestoreResponse: Codable, Sendable, Equatable {
    package var transactions: [StoreTransaction]
    package var outcomes: [TransactionOutcome]
    package var rejected: [RejectedProof]
    package var customer: CustomerInfo?
    /// The app transaction the restore carried, when it verified, and what presenting it did.
    package var appTransaction: AppTransactionResult?

    package init(
        transactions: [StoreTransaction], outcomes: [TransactionOutcome], rejected: [RejectedProof],
        customer: CustomerInfo?, appTransaction: AppTransactionResult? = nil
    ) {
        self.transactions = transactions
        self.outcomes = outcomes
        self.rejected = rejected
        self.customer = customer
        self.appTransaction = appTransaction
    }

    package enum CodingKeys: String, CodingKey {
        case transactions, outcomes, rejected, customer
        case appTransaction = "app_transaction"
    }
}

/// A proof of a restore that did not verify, located by a JSON pointer into the request.
package struct RejectedProof: Codable, Sendable, Equatable {
    package var pointer: String
    package var code: String
    package var detail: String

    package init(pointer: String, code: String, detail: String) {
        self.pointer = pointer
        self.code = code
        self.detail = detail
    }
}
