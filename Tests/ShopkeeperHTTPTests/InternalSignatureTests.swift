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
