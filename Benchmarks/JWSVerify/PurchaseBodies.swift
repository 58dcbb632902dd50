import Foundation
import ShopkeeperStores

/// Writes `POST /v1/purchases` bodies, one JSON object per line, each with a new StoreKit 2 transaction
/// signed by the sandbox store's chain (`pki.pem`), for the HTTP purchase benchmark.
///
///     shopkeeper-bench-jws emit COUNT PKI_PEM BUNDLE_ID PRODUCTS [APP_USER_ID] > bodies.jsonl
///
/// `PRODUCTS` is a comma-separated list of App Store product ids, each optionally `=Type` (Apple's type name,
/// `Consumable` by default); the bodies cycle through them. Without `APP_USER_ID` the bodies spread over 1000 users.
enum PurchaseBodies {
    /// `id[=Type],...` as (product id, type) pairs.
    static func products(_ list: String) -> [(String, String)] {
        list.split(separator: ",").map { entry in
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count == 2 ? parts[1] : AppleProductType.consumable.rawValue)
        }
    }

    static func emit(count: Int, pkiPath: String, bundleID: String, products: [(String, String)], appUserID: String?)
        throws
    {
        let chain = try SigningChain(pemBundle: try String(contentsOfFile: pkiPath, encoding: .utf8))
        let signer = try ES256Signer(chain: chain)
        let run = UUID().uuidString.prefix(8)
        let now = Date().appleMilliseconds
        var output = ""
        for index in 0..<count {
            let id = "bench-\(run)-\(index)"
            let (productID, type) = products[index % products.count]
            let payload = AppleTransactionPayload(
                transactionId: id, originalTransactionId: id, bundleId: bundleID, productId: productID,
                purchaseDate: now, originalPurchaseDate: now, quantity: 1, type: type,
                inAppOwnershipType: "PURCHASED", signedDate: now, environment: "Sandbox", storefront: "USA",
                storefrontId: "143441", transactionReason: "PURCHASE", currency: "USD", price: 990
            )
            let body = try JSONSerialization.data(withJSONObject: [
                "app_user_id": appUserID ?? "bench-user-\(index % 1000)", "device_id": "bench-device",
                "signed_transaction": try signer.sign(payload),
            ])
            output += String(decoding: body, as: UTF8.self) + "\n"
            if output.utf8.count > 1 << 20 {
                FileHandle.standardOutput.write(Data(output.utf8))
                output = ""
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}
