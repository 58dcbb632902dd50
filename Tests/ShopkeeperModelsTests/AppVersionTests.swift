import Foundation
import ShopkeeperModels
import Testing

@Suite struct AppVersionTests {
    @Test(arguments: [
        ("1", "1.0", false, true),
        ("1.0", "2.0", true, false),
        ("1.9", "1.10", true, false),
        ("2.0.1", "2.0", false, false),
        ("1.2.3.4", "1.2.3.5", true, false),
        ("10", "9.99", false, false),
    ])
    func ordering(lhs: String, rhs: String, less: Bool, equal: Bool) throws {
        let left = try #require(AppVersion(lhs))
        let right = try #require(AppVersion(rhs))
        #expect((left < right) == less)
        #expect((left == right) == equal)
    }

    @Test(arguments: ["", "1.", ".1", "1..2", "a.b", "1.2.3.4.5", "-1", "1.0-beta", " 1", "1234567"])
    func rejectsMalformed(_ text: String) {
        #expect(AppVersion(text) == nil)
    }

    @Test func equalVersionsHashAlike() throws {
        let set: Set = [try #require(AppVersion("2")), try #require(AppVersion("2.0.0"))]
        #expect(set.count == 1)
    }
}

@Suite struct ISODurationTests {
    @Test(arguments: [
        ("P1Y", "P1Y"), ("p1m", "P1M"), ("P7D", "P7D"), ("P2W", "P2W"), ("PT12H", "PT12H"), ("P1DT30M", "P1DT30M"),
    ])
    func parses(text: String, canonical: String) throws {
        #expect(try #require(ISODuration(text)).description == canonical)
    }

    @Test(arguments: ["", "P", "1Y", "PT", "P1H", "PT1D", "P0D", "P1.5Y", "P1Y2", "PY"])
    func rejectsMalformed(_ text: String) {
        #expect(ISODuration(text) == nil)
    }

    @Test func addsCalendarMonthsInUTC() throws {
        let start = try #require(ISO8601DateFormatter().date(from: "2026-01-31T10:00:00Z"))
        let end = try #require(ISODuration("P1M")).added(to: start)
        #expect(ISO8601DateFormatter().string(from: end) == "2026-02-28T10:00:00Z")
        let year = try #require(ISODuration("P1Y")).added(to: start)
        #expect(ISO8601DateFormatter().string(from: year) == "2027-01-31T10:00:00Z")
    }
}

@Suite struct ProductDecodingTests {
    @Test func rejectsUnknownFieldsWithTheirPath() throws {
        let json =
            #"{"product_id":"a","type":"consumable","review_state":"approved","default_locale":"en","localizations":{"en":{"name":"A","colour":"red"}}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Product.self, from: Data(json.utf8)) }
    }

    @Test func roundTripsThroughJSON() throws {
        let product = Product(
            productID: "fertilizer_10",
            type: .consumable,
            storeProductIDs: [.appStore: "com.x.fert", .playStore: "fert"],
            minAppVersion: AppVersion("1.2"),
            consumableQuantity: 10,
            localizations: ["en": .init(name: "Fertilizer", screenshotURLs: ["https://x.example/1.png"])]
        )
        let data = try JSONEncoder().encode(product)
        #expect(try JSONDecoder().decode(Product.self, from: data) == product)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"store_product_ids\""))
        #expect(text.contains("\"app_store\""))
    }
}
