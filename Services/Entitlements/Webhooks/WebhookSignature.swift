import Crypto
import Foundation
import ShopkeeperCore

/// The `Shopkeeper-Signature` header of a webhook request: `t=<unix seconds>,v1=<hex HMAC-SHA256>` over
/// `"<t>.<body>"`, keyed with the UTF-8 bytes of the app's whole webhook secret (`whsec_…`).
///
/// The timestamp is signed with the body, so a receiver that refuses old timestamps (five minutes is usual) also
/// refuses replayed requests.
enum WebhookSignature {
    /// The header's value for `body` sent at `timestamp`.
    static func header(secret: String, timestamp: Date, body: some DataProtocol) -> String {
        let seconds = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(seconds),v1=\(signature(secret: secret, seconds: seconds, body: body))"
    }

    /// The hex HMAC-SHA256 of `"<seconds>.<body>"` under `secret`.
    static func signature(secret: String, seconds: Int64, body: some DataProtocol) -> String {
        var message = Data("\(seconds).".utf8)
        message.append(contentsOf: body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.hexString
    }
}
