import Foundation
import ShopkeeperStores
import Testing

/// The `Stripe-Signature` check: only a `v1` HMAC-SHA256 of `t.body` under an accepted secret, signed within the
/// tolerance, authenticates a webhook. The expected values were computed with Python's `hmac` (an independent
/// implementation of the scheme Stripe documents).
@Suite struct StripeWebhookSignatureTests {
    static let body = Array(#"{"id":"evt_1NFX","object":"event","type":"invoice.paid"}"#.utf8)
    static let signedAt = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = "whsec_test_secret"
    static let vector = "f46bdc6f85b4becae32a6d4ea30241f40d50438a0ef72c20a73ff54a8f30e23d"
    static let rolledSecret = "whsec_rolled_secret"
    static let rolledVector = "de43b9573ee021b1dcd2f6de495e6924455500cd18f45e3b13956ea52832eda7"

    func verify(
        _ header: String, body: [UInt8] = body, secrets: [String] = [secret], now: Date = signedAt
    ) throws(StripeSignatureError) -> Date {
        try StripeWebhookSignature.verify(payload: body, header: header, secrets: secrets, now: now)
    }

    @Test func signsAsStripeDocuments() {
        let header = StripeWebhookSignature.header(payload: Self.body, secrets: [Self.secret], timestamp: Self.signedAt)
        #expect(header == "t=1700000000,v1=\(Self.vector)")
    }

    @Test func acceptsTheKnownVectorAndAnswersItsTime() throws {
        #expect(try verify("t=1700000000,v1=\(Self.vector)") == Self.signedAt)
        // Upper-case hex, spaces after commas and other schemes beside it change nothing.
        #expect(try verify("t=1700000000, v0=abc, v1=\(Self.vector.uppercased())") == Self.signedAt)
    }

    @Test func acceptsAnyOfSeveralSignaturesUnderAnyAcceptedSecret() throws {
        let both = "t=1700000000,v1=\(Self.rolledVector),v1=\(Self.vector)"
        #expect(try verify(both) == Self.signedAt)
        // The endpoint rolled its secret: the old and the new one are accepted while both are configured.
        #expect(
            try verify("t=1700000000,v1=\(Self.rolledVector)", secrets: [Self.secret, Self.rolledSecret])
                == Self.signedAt)
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try verify("t=1700000000,v1=\(Self.rolledVector)")
        }
    }

    @Test func refusesAnAlteredBodyOrTimestamp() {
        var altered = Self.body
        altered[altered.count - 3] = UInt8(ascii: "x")
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try verify("t=1700000000,v1=\(Self.vector)", body: altered)
        }
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try verify("t=1700000001,v1=\(Self.vector)", now: Self.signedAt.addingTimeInterval(1))
        }
        // The signature of an old scheme alone is no signature.
        #expect(throws: StripeSignatureError.noSignatures) { try verify("t=1700000000,v0=\(Self.vector)") }
    }

    @Test func refusesAReplayOlderThanTheTolerance() throws {
        let header = "t=1700000000,v1=\(Self.vector)"
        #expect(try verify(header, now: Self.signedAt.addingTimeInterval(300)) == Self.signedAt)
        #expect(throws: StripeSignatureError.timestampOutsideTolerance) {
            try verify(header, now: Self.signedAt.addingTimeInterval(301))
        }
        // From the future (a clock ahead): accepted, as Stripe's libraries accept it.
        #expect(try verify(header, now: Self.signedAt.addingTimeInterval(-600)) == Self.signedAt)
    }

    @Test(arguments: [
        "", "v1=abc", "t=,v1=00", "t=abc,v1=00", "t=-5,v1=00", "t=1700000000,t=1700000000,v1=00", "garbage",
    ])
    func refusesMalformedHeaders(header: String) {
        #expect(throws: StripeSignatureError.malformedHeader) { try verify(header) }
    }

    @Test func refusesSignaturesOfTheWrongShapeAndEndpointsWithoutSecrets() {
        #expect(throws: StripeSignatureError.noSignatures) {
            try verify("t=1700000000,v1=\(Self.vector.dropLast(2))")
        }
        #expect(throws: StripeSignatureError.noSignatures) {
            try verify("t=1700000000,v1=zz\(Self.vector.dropFirst(2))")
        }
        #expect(throws: StripeSignatureError.noSecret) { try verify("t=1700000000,v1=\(Self.vector)", secrets: []) }
    }
}
