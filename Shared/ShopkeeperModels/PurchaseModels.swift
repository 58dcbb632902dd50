/// A store's proof of purchase, in exactly one of three forms: `signed_transaction` (a StoreKit 2
/// JWS), `receipt_data` (the base64 app receipt of StoreKit 1), or `purchase_token` with `product_id`
/// (Google Play). The body of `POST /v1/receipts/validate`, and part of `POST /v1/purchases`.
package struct StoreProofFields: Codable, Sendable, Equatable {
    package var signedTransaction: String?
    package var receiptData: String?
    package var purchaseToken: String?
    /// The Play product id of `purchase_token`.
    package var productID: String?
    /// For Play tokens: `product` (one-time) or `subscription`; `product` when absent.
    package var purchaseKind: PlayPurchaseKind?
    /// A StoreKit 2 `AppTransaction` JWS: proves which edition of the app the customer got, and from which version.
    package var signedAppTransaction: String?

    package init(
        signedTransaction: String? = nil, receiptData: String? = nil, purchaseToken: String? = nil,
        productID: String? = nil, purchaseKind: PlayPurchaseKind? = nil, signedAppTransaction: String? = nil
    ) {
        self.signedTransaction = signedTransaction
        self.receiptData = receiptData
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.purchaseKind = purchaseKind
        self.signedAppTransaction = signedAppTransaction
    }

    package enum CodingKeys: String, CodingKey {
        case signedAppTransaction = "signed_app_transaction"
        case signedTransaction = "signed_transaction"
        case receiptData = "receipt_data"
        case purchaseToken = "purchase_token"
        case productID = "product_id"
        case purchaseKind = "purchase_kind"
    }
}

/// `POST /v1/purchases`: a proof (flat, as in ``StoreProofFields``) and who presents it.
package struct PurchaseRequest: Codable, Sendable, Equatable {
    package var appUserID: String
    package var deviceID: String?
    package var appVersion: String?
    package var proof: StoreProofFields

    package init(appUserID: String, deviceID: String? = nil, appVersion: String? = nil, proof: StoreProofFields) {
        self.appUserID = appUserID
        self.deviceID = deviceID
        self.appVersion = appVersion
        self.proof = proof
    }

    package enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case appVersion = "app_version"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appUserID = try container.decode(String.self, forKey: .appUserID)
        deviceID = try container.decodeIfPresent(String.self, forKey: .deviceID)
        appVersion = try container.decodeIfPresent(String.self, forKey: .appVersion)
        proof = try StoreProofFields(from: decoder)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(appUserID, forKey: .appUserID)
        try container.encodeIfPresent(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(appVersion, forKey: .appVersion)
        try proof.encode(to: encoder)
    }
}

/// Which Play Developer API a purchase token belongs to.
package enum PlayPurchaseKind: String, Codable, Sendable, CaseIterable {
    case product
    case subscription
}

/// The answer to `POST /v1/purchases`: the verified transactions as recorded, what applying them did, and what
/// the customer owns now (everything committed: the app may finish the store transaction).
package struct PurchaseResponse: Codable, Sendable, Equatable {
    package var transactions: [StoreTransaction]
    package var outcomes: [TransactionOutcome]
    package var customer: CustomerInfo?
    /// For a `signed_app_transaction`: what it says and what became of it.
    package var appTransaction: AppTransactionResult?

    package init(
        transactions: [StoreTransaction], outcomes: [TransactionOutcome] = [], customer: CustomerInfo? = nil,
        appTransaction: AppTransactionResult? = nil
    ) {
        self.transactions = transactions
        self.outcomes = outcomes
        self.customer = customer
        self.appTransaction = appTransaction
    }

    package enum CodingKeys: String, CodingKey {
        case transactions, outcomes, customer
        case appTransaction = "app_transaction"
    }
}

/// A verified app transaction in a purchase's answer.
package struct AppTransactionResult: Codable, Sendable, Equatable {
    package var facts: AppTransactionFacts
    package var outcome: AppTransactionOutcome

    package init(facts: AppTransactionFacts, outcome: AppTransactionOutcome) {
        self.facts = facts
        self.outcome = outcome
    }

    package enum CodingKeys: String, CodingKey {
        case outcome
    }

    package init(from decoder: any Decoder) throws {
        facts = try AppTransactionFacts(from: decoder)
        outcome = try decoder.container(keyedBy: CodingKeys.self).decode(AppTransactionOutcome.self, forKey: .outcome)
    }

    package func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
    }
}

/// `POST /v1/receipts/validate`: whether a saved proof is still good now.
package struct ReceiptValidationResponse: Codable, Sendable, Equatable {
    package var status: ProofStatus
    /// The problem code when `status` is `invalid`.
    package var code: String?
    package var transactions: [StoreTransaction]
    /// `delete` when the proof is `revoked`: the app deletes the downloaded content of the revoked purchases (the
    /// content service already refuses their manifests and downloads with `403 revoked`).
    package var contentAction: String?

    package init(status: ProofStatus, code: String? = nil, transactions: [StoreTransaction]) {
        self.status = status
        self.code = code
        self.transactions = transactions
        self.contentAction = status == .revoked ? "delete" : nil
    }

    package enum CodingKeys: String, CodingKey {
        case status, code, transactions
        case contentAction = "content_action"
    }
}

/// What a saved proof is worth now.
package enum ProofStatus: String, Codable, Sendable, CaseIterable {
    case valid
    case revoked
    case expired
    case invalid
}
