import Foundation
import ShopkeeperStores
import SwiftASN1
import Testing

/// The ASN.1 payload alone: Apple's attribute numbers and types, both directions.
@Suite struct AppReceiptPayloadTests {
    typealias F = ReceiptFixtures

    func code(_ payload: [UInt8]) -> String? {
        do {
            _ = try AppReceipt(derPayload: payload)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func payloadRoundTrips() throws {
        let receipt = F.receipt()
        #expect(try AppReceipt(derPayload: receipt.derPayload()) == receipt)
        let bare = AppReceipt(bundleId: "b", creationDate: F.newYearNoon)
        #expect(try AppReceipt(derPayload: bare.derPayload()) == bare)
    }

    @Test func payloadUsesApplesAttributeNumbersAndTypes() throws {
        let receipt = F.receipt(creationDate: F.newYearNoon)
        let root = try BER.parse(receipt.derPayload())
        #expect(root.identifier == .set)
        guard case .constructed(let elements) = root.content else {
            Issue.record("payload is not a constructed SET")
            return
        }
        var values: [Int64: [UInt8]] = [:]
        for element in elements {
            let (type, value) = try BER.sequence(element, identifier: .sequence) { nodes in
                let type = try Int64(berEncoded: &nodes)
                _ = try Int64(berEncoded: &nodes)
                return (type, try ASN1OctetString(berEncoded: &nodes))
            }
            values[type] = Array(value.bytes)
        }
        #expect(Set(values.keys) == [0, 2, 3, 4, 5, 12, 17, 18, 19])
        #expect(values[2] == (try F.utf8("com.example.shöp")))
        #expect(values[12] == (try F.ia5("2023-01-01T12:00:00Z")))
        #expect(values[18] == (try F.ia5("2022-12-31T12:00:00Z")))
        #expect(values[4] == [0x01, 0x02, 0x03, 0xFF])
    }

    @Test func inAppPurchaseAttributes() throws {
        let purchase = F.receipt().inAppPurchases[1]
        let receipt = AppReceipt(bundleId: "b", creationDate: F.newYearNoon, inAppPurchases: [purchase])
        let bytes = try receipt.derPayload()
        // Each expected value, encoded as Apple does, appears as an OCTET STRING inside the nested set.
        let expected: [[UInt8]] = [
            try F.attribute(1701, F.der(Int64(1))),
            try F.attribute(1702, F.utf8("com.example.monthly")),
            try F.attribute(1703, F.utf8("1000000000000003")),
            try F.attribute(1705, F.utf8("1000000000000002")),
            try F.attribute(1704, F.ia5("2023-01-01T12:00:00Z")),
            try F.attribute(1708, F.ia5("2023-01-31T12:00:00Z")),
            try F.attribute(1712, F.ia5("2023-01-02T12:00:00.500Z")),
            try F.attribute(1711, F.der(Int64(1_000_000_000_000_042))),
            try F.attribute(1713, F.der(Int64(1))),
            try F.attribute(1719, F.der(Int64(0))),
            try F.attribute(1721, F.utf8("winback")),
        ]
        for attribute in expected {
            #expect(AppReceiptTests.firstIndex(of: attribute, in: bytes) != nil, "missing \(attribute.prefix(8))")
        }
    }

    @Test func decodesAHandMadePayloadAndIgnoresUnknownAttributes() throws {
        let inApp = F.set([
            try F.attribute(1701, F.der(Int64(2))),
            try F.attribute(1702, F.utf8("gems")),
            try F.attribute(1703, F.utf8("t2")),
            try F.attribute(1705, F.utf8("t1")),
            try F.attribute(1704, F.ia5("2023-06-30T23:59:59Z")),
            try F.attribute(1706, F.ia5("2023-06-01T00:00:00.5Z")),
            try F.attribute(1708, F.ia5("")),
            try F.attribute(1799, F.utf8("unknown in-app attribute")),
        ])
        let receipt = try AppReceipt(
            derPayload: F.payload([
                try F.attribute(17, inApp), try F.attribute(99, [0xFF, 0x00]), try F.attribute(8, F.ia5("x")),
            ]))
        #expect(receipt.bundleId == "com.example.app")
        #expect(receipt.receiptType == "Production")
        #expect(receipt.creationDate == F.newYearNoon)
        #expect(receipt.originalPurchaseDate == nil)
        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(purchase.quantity == 2)
        #expect(purchase.originalTransactionId == "t1")
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_688_169_599))
        #expect(purchase.originalPurchaseDate == Date(timeIntervalSince1970: 1_685_577_600.5))
        #expect(purchase.expiresDate == nil)
        #expect(purchase.isTrialPeriod == false)
    }

    @Test func wrongInnerTypesAreMalformed() throws {
        #expect(code(try F.payload(bundleId: F.der(Int64(7)))) == "malformed_receipt")
        #expect(code(try F.payload(bundleId: [0x0C, 0x05, 0x61])) == "malformed_receipt")  // truncated UTF8String
        #expect(code(try F.payload(bundleId: [0x0C, 0x02, 0xC3, 0x28])) == "malformed_receipt")  // invalid UTF-8
        #expect(code(try F.payload([F.attribute(21, F.ia5("yesterday"))])) == "malformed_receipt")
        #expect(code(try F.payload([F.attribute(21, F.ia5("2023-02-30T00:00:00Z"))])) == "malformed_receipt")
        #expect(code(try F.payload([F.attribute(21, F.utf8("2023-01-01 12:00:00"))])) == "malformed_receipt")
        #expect(code(try F.payload([F.attribute(18, F.der(Int64(1)))])) == "malformed_receipt")
        let badQuantity = F.set([try F.attribute(1701, F.utf8("1"))])
        #expect(code(try F.payload([F.attribute(17, badQuantity)])) == "malformed_receipt")
        #expect(code(try F.payload([F.attribute(17, [0x30, 0x00])])) == "malformed_receipt")
        #expect(code(try F.payload([F.attribute(2, F.utf8("again"))])) == "malformed_receipt")  // duplicate
        #expect(code(try F.payload([[0x30, 0x03, 0x02, 0x01, 0x02]])) == "malformed_receipt")  // two fields short
        #expect(code(try F.payload([[0x30, 0x06, 0x02, 0x01, 0x02, 0x02, 0x01, 0x01]])) == "malformed_receipt")
        #expect(code([0x30, 0x00]) == "malformed_receipt")  // a SEQUENCE, not a SET
        #expect(code([]) == "malformed_receipt")
        #expect(code(try F.payload()) == nil)
    }

    @Test func missingRequiredAttributesAreMalformed() throws {
        let withoutCreationDate = F.set([
            try F.attribute(0, F.utf8("Production")), try F.attribute(2, F.utf8("b")),
            try F.attribute(3, F.utf8("1")), try F.attribute(4, []), try F.attribute(5, []),
            try F.attribute(19, F.utf8("1.0")),
        ])
        #expect(code(withoutCreationDate) == "malformed_receipt")
        let inAppWithoutProduct = F.set([
            try F.attribute(1701, F.der(Int64(1))), try F.attribute(1703, F.utf8("t")),
            try F.attribute(1705, F.utf8("t")), try F.attribute(1704, F.ia5("2023-01-01T00:00:00Z")),
            try F.attribute(1706, F.ia5("2023-01-01T00:00:00Z")),
        ])
        #expect(code(try F.payload([F.attribute(17, inAppWithoutProduct)])) == "malformed_receipt")
    }

    @Test func xcodesDoublyWrappedPayloadIsRead() throws {
        let payload = try F.payload()
        let wrapped = try F.der(ASN1OctetString(contentBytes: payload[...]))
        #expect(try AppReceipt(derPayload: wrapped).bundleId == "com.example.app")
    }

    @Test func datesAreKeptToTheMillisecond() {
        let purchase = AppReceipt.InAppPurchase(
            productId: "p", transactionId: "t", purchaseDate: Date(timeIntervalSince1970: 1.23456))
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1.235))
        var receipt = AppReceipt(bundleId: "b", creationDate: Date(timeIntervalSince1970: 10.0004))
        #expect(receipt.creationDate == Date(timeIntervalSince1970: 10))
        receipt.creationDate = Date(timeIntervalSince1970: 20.0006)
        #expect(receipt.creationDate == Date(timeIntervalSince1970: 20.001))
    }
}
