/// A store's proof of a purchase, as the device has it (schema `StoreProof`).
public enum PurchaseProof: Codable, Hashable, Sendable {
    /// A StoreKit 2 signed transaction (`Transaction.jwsRepresentation`).
    case signedTransaction(String)
    /// A StoreKit 1 app receipt, base64.
    case receipt(String)
    /// A Google Play purchase token with its Play product id.
    case playPurchase(token: String, productID: String, kind: PlayPurchaseKind)
}

/// Body of `POST /v1/receipts/validate`: the proof's fields, flat.
struct ProofBody: Encodable {
    var proof: PurchaseProof

    enum CodingKeys: String, CodingKey {
        case signedTransaction = "signed_transaction"
        case receiptData = "receipt_data"
        case purchaseToken = "purchase_token"
        case productID = "product_id"
        case purchaseKind = "purchase_kind"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try Self.encode(proof, into: &container)
    }

    static func encode(_ proof: PurchaseProof, into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        switch proof {
        case .signedTransaction(let jws): try container.encode(jws, forKey: .signedTransaction)
        case .receipt(let receipt): try container.encode(receipt, forKey: .receiptData)
        case .playPurchase(let token, let productID, let kind):
            try container.encode(token, forKey: .purchaseToken)
            try container.encode(productID, forKey: .productID)
            try container.encode(kind, forKey: .purchaseKind)
        }
    }
}

/// Body of `POST /v1/purchases` (schema `PurchaseRequest`).
struct PurchaseBody: Encodable {
    var proof: PurchaseProof
    var appUserID: String
    var deviceID: String?
    var appVersion: String?

    enum ExtraKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case appVersion = "app_version"
    }

    func encode(to encoder: any Encoder) throws {
        try ProofBody(proof: proof).encode(to: encoder)
        var container = encoder.container(keyedBy: ExtraKeys.self)
        try container.encode(appUserID, forKey: .appUserID)
        try container.encodeIfPresent(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(appVersion, forKey: .appVersion)
    }
}

/// Body of `POST /v1/purchases` with an app transaction (schema `PurchaseRequest`).
struct AppTransactionBody: Encodable {
    var signedAppTransaction: String
    var appUserID: String
    var deviceID: String?
    var appVersion: String?

    enum CodingKeys: String, CodingKey {
        case signedAppTransaction = "signed_app_transaction"
        case appUserID = "app_user_id"
        case deviceID = "device_id"
        case appVersion = "app_version"
    }
}

/// Body of `POST /v1/customers/{app_user_id}/restore` (schema `RestoreRequest`).
struct RestoreBody: Encodable {
    var proofs: [PurchaseProof]
    var signedAppTransaction: String?
    var deviceID: String?
    var appVersion: String?

    struct PlayProof: Encodable {
        var purchaseToken: String
        var productID: String
        var purchaseKind: PlayPurchaseKind

        enum CodingKeys: String, CodingKey {
            case purchaseToken = "purchase_token"
            case productID = "product_id"
            case purchaseKind = "purchase_kind"
        }
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case appVersion = "app_version"
        case receiptData = "receipt_data"
        case signedTransactions = "signed_transactions"
        case purchaseTokens = "purchase_tokens"
        case signedAppTransaction = "signed_app_transaction"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(signedAppTransaction, forKey: .signedAppTransaction)
        try container.encodeIfPresent(deviceID, forKey: .deviceID)
        try container.encodeIfPresent(appVersion, forKey: .appVersion)
        var signed: [String] = []
        var play: [PlayProof] = []
        var receipt: String?
        for proof in proofs {
            switch proof {
            case .signedTransaction(let jws): signed.append(jws)
            case .receipt(let data): receipt = data
            case .playPurchase(let token, let productID, let kind):
                play.append(PlayProof(purchaseToken: token, productID: productID, purchaseKind: kind))
            }
        }
        if !signed.isEmpty { try container.encode(signed, forKey: .signedTransactions) }
        if !play.isEmpty { try container.encode(play, forKey: .purchaseTokens) }
        try container.encodeIfPresent(receipt, forKey: .receiptData)
    }
}
