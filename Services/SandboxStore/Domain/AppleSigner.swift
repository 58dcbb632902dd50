import Foundation
import ShopkeeperStores

/// Signs App Store data with the sandbox's chain, the way Apple signs it: JWS with ES256 and an `x5c` header, and
/// legacy app receipts as PKCS#7 containers.
struct AppleSigner: Sendable {
    private let signer: ES256Signer
    private let chain: SigningChain

    init(chain: SigningChain) throws {
        self.signer = try ES256Signer(chain: chain)
        self.chain = chain
    }

    /// `signedTransactionInfo` for `record`, signed at `now`.
    func transaction(_ record: AppleTransactionRecord, at now: Date = Date()) throws -> String {
        try signer.sign(record.payload(signedDate: now))
    }

    /// `signedRenewalInfo` for the subscription whose latest transaction is `latest`.
    func renewalInfo(_ latest: AppleTransactionRecord, recentStart: Int64, at now: Date = Date()) throws -> String {
        try signer.sign(latest.renewalInfo(signedDate: now, recentStart: recentStart))
    }

    /// A `signedPayload` of App Store Server Notifications V2.
    func notification(_ payload: AppleNotificationPayload) throws -> String {
        try signer.sign(payload)
    }

    /// `receipt` as an app receipt travels: the base64 of its PKCS#7 container.
    func receipt(_ receipt: AppReceipt) throws -> String {
        Data(try AppReceiptContainer.sign(receipt, with: chain)).base64EncodedString()
    }
}
