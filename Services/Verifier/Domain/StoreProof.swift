import ShopkeeperHTTP
import ShopkeeperModels

/// A proof of purchase in one of the forms the stores issue.
enum StoreProof: Sendable, Equatable {
    case signedTransaction(String)
    case receipt(String)
    case playToken(token: String, productID: String, kind: PlayPurchaseKind)
    case appTransaction(String)

    var kind: ProofKind {
        switch self {
        case .signedTransaction: .signedTransaction
        case .receipt: .receipt
        case .playToken: .playToken
        case .appTransaction: .appTransaction
        }
    }

    var raw: String {
        switch self {
        case .signedTransaction(let jws): jws
        case .receipt(let data): data
        case .playToken(let token, let productID, let kind): "\(kind.rawValue):\(productID):\(token)"
        case .appTransaction(let jws): jws
        }
    }

    /// The one proof `fields` carry; a request with none or several is invalid.
    init(_ fields: StoreProofFields) throws(RequestError) {
        let given = [
            fields.signedTransaction.map { _ in "signed_transaction" }, fields.receiptData.map { _ in "receipt_data" },
            fields.purchaseToken.map { _ in "purchase_token" },
            fields.signedAppTransaction.map { _ in "signed_app_transaction" },
        ].compactMap { $0 }
        guard given.count == 1 else {
            throw .validationFailed([
                FieldProblem(
                    pointer: given.count == 0 ? "/signed_transaction" : "/\(given[1])",
                    detail:
                        "exactly one of signed_transaction, receipt_data, purchase_token or signed_app_transaction "
                        + "is required")
            ])
        }
        if let jws = fields.signedTransaction {
            guard !jws.isEmpty else { throw .invalid("/signed_transaction", "must not be empty") }
            self = .signedTransaction(jws)
        } else if let receipt = fields.receiptData {
            guard !receipt.isEmpty else { throw .invalid("/receipt_data", "must not be empty") }
            self = .receipt(receipt)
        } else if let token = fields.purchaseToken {
            guard !token.isEmpty else { throw .invalid("/purchase_token", "must not be empty") }
            guard let productID = fields.productID, !productID.isEmpty else {
                throw .invalid("/product_id", "is required with purchase_token")
            }
            self = .playToken(token: token, productID: productID, kind: fields.purchaseKind ?? .product)
        } else if let jws = fields.signedAppTransaction {
            guard !jws.isEmpty else { throw .invalid("/signed_app_transaction", "must not be empty") }
            self = .appTransaction(jws)
        } else {
            throw .invalid("/signed_transaction", "a proof is required")
        }
    }
}
