import Crypto
import Foundation
import ShopkeeperCore

/// The `Stripe-Signature` header of a Stripe webhook, as Stripe documents it ("Verify webhook signatures"):
/// `t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=...][,v0=...]`, where each `v1` is an HMAC-SHA256, keyed with an
/// endpoint's signing secret (`whsec_...`, its UTF-8 bytes as they are), of `<t>.<the request body as sent>`.
///
/// Several `v1` values appear while a secret is being rolled (one per secret Stripe still signs with); a request
/// is authentic when any of them is the HMAC under any secret the endpoint accepts. Other schemes (`v0`, test mode's
/// old scheme) are ignored. A timestamp older than the tolerance is refused, as Stripe's libraries refuse it, so a
/// captured request cannot be replayed later; one from the future is accepted, as they accept it (clocks differ).
package enum StripeWebhookSignature {
    /// Stripe's libraries' default tolerance: five minutes.
    package static let defaultTolerance: TimeInterval = 300

    /// The header Stripe would send for `payload` signed at `timestamp` with each of `secrets` (the sandbox store
    /// signs its webhooks with this).
    package static func header(payload: some DataProtocol, secrets: [String], timestamp: Date) -> String {
        let seconds = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        let signatures = secrets.map { secret in
            "v1=" + HMAC<SHA256>.authenticationCode(for: signedPayload(seconds, payload), using: key(secret)).hexString
        }
        return (["t=\(seconds)"] + signatures).joined(separator: ",")
    }

    /// Checks `header` against `payload` (the raw body bytes, before any parsing) and the endpoint's `secrets`,
    /// and answers the signed timestamp. Every comparison of a signature is constant-time.
    package static func verify(
        payload: some DataProtocol, header: String, secrets: [String], tolerance: TimeInterval = defaultTolerance,
        now: Date = Date()
    ) throws(StripeSignatureError) -> Date {
        let parsed = try parse(header)
        guard !secrets.isEmpty else { throw .noSecret }
        let signed = signedPayload(parsed.timestamp, payload)
        let matches = secrets.contains { secret in
            parsed.signatures.contains { signature in
                HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key(secret))
            }
        }
        guard matches else { throw .noMatchingSignature }
        let signedAt = Date(timeIntervalSince1970: TimeInterval(parsed.timestamp))
        guard signedAt >= now.addingTimeInterval(-tolerance) else { throw .timestampOutsideTolerance }
        return signedAt
    }

    /// The timestamp and the `v1` signatures (decoded from hex) of a header.
    static func parse(_ header: String) throws(StripeSignatureError) -> (timestamp: Int64, signatures: [[UInt8]]) {
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let (name, value) = (pair[0].trimmingCharacters(in: .whitespaces), String(pair[1]))
            switch name {
            case "t":
                guard timestamp == nil, let seconds = Int64(value), seconds > 0 else { throw .malformedHeader }
                timestamp = seconds
            case "v1":
                // A value that is not 64 hex digits can match nothing: skipped, as Stripe's libraries skip it.
                if let bytes = Data(hexString: value), bytes.count == SHA256.byteCount {
                    signatures.append(Array(bytes))
                }
            default:
                continue
            }
        }
        guard let timestamp else { throw .malformedHeader }
        guard !signatures.isEmpty else { throw .noSignatures }
        return (timestamp, signatures)
    }

    private static func signedPayload(_ seconds: Int64, _ payload: some DataProtocol) -> [UInt8] {
        Array("\(seconds).".utf8) + Array(payload)
    }

    private static func key(_ secret: String) -> SymmetricKey {
        SymmetricKey(data: Array(secret.utf8))
    }
}

/// Why a `Stripe-Signature` header does not authenticate a request.
package enum StripeSignatureError: Error, Equatable, Sendable {
    /// No header, no `t=`, `t=` twice, or a timestamp that is not a positive number of seconds.
    case malformedHeader
    /// No `v1` signature of the right length (Stripe: "No signatures found with expected scheme").
    case noSignatures
    /// No `v1` signature is the body's HMAC under any accepted secret.
    case noMatchingSignature
    /// Signed longer ago than the tolerance (a replay, or a clock far off).
    case timestampOutsideTolerance
    /// The endpoint has no signing secret configured.
    case noSecret
}
