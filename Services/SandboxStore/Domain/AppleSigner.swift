import Foundation
import ShopkeeperStores

/// Signs App Store data with the sandbox's chain, the way Apple signs it: ES256 with an `x5c` header.
struct AppleSigner: Sendable {
    private let signer: ES256Signer

    init(chain: SigningChain) throws {
        self.signer = try ES256Signer(chain: chain)
    }

    /// `signedTransactionInfo` for `record`, signed at `now`.
    func transaction(_ record: AppleTransactionRecord, at now: Date = Date()) throws -> String {
        try signer.sign(record.payload(signedDate: now))
    }

    /// `signedRenewalInfo` for the subscription whose latest transaction is `latest`.
    func renewalInfo(_ latest: AppleTransactionRecord, recentStart: Int64, at now: Date = Date()) throws -> String {
        try signer.sign(latest.renewalInfo(signedDate: now, recentStart: recentStart))
    }
}
