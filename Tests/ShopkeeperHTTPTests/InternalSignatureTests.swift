import Foundation
import ShopkeeperCore
import ShopkeeperModels
import Testing

@Suite struct InternalSignatureTests {
    let signer = InternalSignature(secret: "0123456789abcdef0123456789abcdef", window: .seconds(60))
    let caller = InternalCaller(appID: "app_1", keyKind: .public)

    func sign(at date: Date, path: String = "/internal/apply", body: String = "{}") -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: signer.headers(
                method: "POST",
                pathAndQuery: path,
                caller: caller,
                contentSHA256: InternalSignature.bodyHash(Data(body.utf8)),
                now: date
            )
        )
    }

    func verify(_ headers: [String: String], path: String = "/internal/apply", body: String = "{}", now: Date)
        throws(InternalSignatureError)
    {
        try signer.verify(
            method: "POST",
            pathAndQuery: path,
            timestamp: headers[InternalHeader.timestamp],
            caller: caller,
            contentSHA256: InternalSignature.bodyHash(Data(body.utf8)),
            signature: headers[InternalHeader.signature],
            now: now
        )
    }

    @Test func acceptsAFreshSignature() throws {
        let now = Date()
        try verify(sign(at: now), now: now.addingTimeInterval(30))
    }

    @Test func theProvedCustomerIsSigned() throws {
        let now = Date()
        let alice = InternalCaller(appID: "app_1", keyKind: .public, customer: "alice smith/1")
        let headers = Dictionary(
            uniqueKeysWithValues: signer.headers(
                method: "POST", pathAndQuery: "/v1/purchases", caller: alice,
                contentSHA256: InternalSignature.unsignedPayload, now: now))
        // Percent-encoded on the wire, decoded back to the same customer.
        let encoded = try #require(headers[InternalHeader.customer])
        #expect(encoded == "alice%20smith%2F1")
        #expect(InternalCaller.decodeCustomer(encoded) == "alice smith/1")
        func verify(_ caller: InternalCaller) throws(InternalSignatureError) {
            try signer.verify(
                method: "POST", pathAndQuery: "/v1/purchases", timestamp: headers[InternalHeader.timestamp],
                caller: caller, contentSHA256: InternalSignature.unsignedPayload,
                signature: headers[InternalHeader.signature], now: now)
        }
        try verify(alice)
        // Another customer, or none, does not verify: the customer cannot be added, dropped or swapped.
        #expect(throws: InternalSignatureError.mismatch) {
            try verify(InternalCaller(appID: "app_1", keyKind: .public, customer: "bob"))
        }
        #expect(throws: InternalSignatureError.mismatch) { try verify(caller) }
        // Without a customer the signed message is what it always was.
        let plain = sign(at: now)
        #expect(plain[InternalHeader.customer] == nil)
        try self.verify(plain, now: now)
    }

    @Test func refusesOldOrFutureTimestamps() {
        let now = Date()
        #expect(throws: InternalSignatureError.expired) { try verify(sign(at: now), now: now.addingTimeInterval(61)) }
        #expect(throws: InternalSignatureError.expired) { try verify(sign(at: now.addingTimeInterval(120)), now: now) }
    }

    @Test func refusesAnotherBodyOrPath() {
        let now = Date()
        #expect(throws: InternalSignatureError.mismatch) { try verify(sign(at: now), body: "{\"a\":1}", now: now) }
        #expect(throws: InternalSignatureError.mismatch) {
            try verify(sign(at: now), path: "/internal/other", now: now)
        }
    }

    @Test func refusesMissingAndMalformedHeaders() {
        let now = Date()
        var headers = sign(at: now)
        headers[InternalHeader.signature] = nil
        #expect(throws: InternalSignatureError.missing) { try verify(headers, now: now) }
        headers = sign(at: now)
        headers[InternalHeader.signature] = "zz"
        #expect(throws: InternalSignatureError.malformed) { try verify(headers, now: now) }
        headers = sign(at: now)
        headers[InternalHeader.timestamp] = "yesterday"
        #expect(throws: InternalSignatureError.malformed) { try verify(headers, now: now) }
    }
}
