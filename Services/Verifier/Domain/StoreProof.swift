import ShopkeeperHTTP
import ShopkeeperModels

/// A proof of purchase in one of the forms the stores issue.
enum StoreProof: Sendable, Equatable {
    case signedTransaction(String)
    case receipt(String)
    case playToken(token: String, productID: String, kind: PlayPurchaseKind)

    var kind: ProofKind {
        switch self {
        case .signedTransaction: .signedTransaction
        case .receipt: .receipt
        case .playToken: .playToken
        }
    }

    var raw: String {
        switch self {
        case .signedTransaction(let jws): jws
        case .receipt(let data): data
        case .playToken(let token, let productID, let kind): "\(kind.rawValue):\(productID):\(token)"
        }
    }

    /// The one proof `fields` carry; a request with none or several is invalid.
    init(_ fields: StoreProofFields) throws(RequestError) {
        let given = [
            fields.signedTransaction.map { _ in "signed_transaction" }, fields.receiptData.map { _ in "receipt_data" },
            fields.purchaseToken.map { _ in "purchase_token" },
        ].compactMap { $0 }
        guard given.count == 1 else {
            throw .validationFailed([
                FieldProblem(
                    pointer: given.count == 0 ? "/signed_transaction" : "/\(given[1])",
                    detail: "exactly one of signed_transaction, receipt_data or purchase_token is required")
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
        } else {
            throw .invalid("/signed_transaction", "a proof is required")
        }
    }
}
