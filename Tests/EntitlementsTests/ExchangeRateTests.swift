import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// `PUT`/`GET /v1/admin/exchange-rates`: rates loaded from ECB's XML, a CSV or by hand, per app, each bad file a 4xx
/// naming its line, a load idempotent.
@Suite("Exchange rates")
struct ExchangeRateTests {
    static let path = "/v1/admin/exchange-rates"

    /// An ECB `eurofxref` document of two days, as the ECB publishes them (`eurofxref-hist.xml`'s shape).
    static let ecb = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" \
        xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
        \t<gesmes:subject>Reference rates</gesmes:subject>
        \t<gesmes:Sender>
        \t\t<gesmes:name>European Central Bank</gesmes:name>
        \t</gesmes:Sender>
        \t<Cube>
        \t\t<Cube time='2025-01-03'>
        \t\t\t<Cube currency='USD' rate='1.0299'/>
        \t\t\t<Cube currency='GBP' rate='0.82920'/>
        \t\t</Cube>
        \t\t<Cube time="2025-01-02">
        \t\t\t<Cube currency="USD" rate="1.0350"/><Cube currency="JPY" rate="163.06"/>
        \t\t</Cube>
        \t</Cube>
        </gesmes:Envelope>
        """

    @Test("ECB XML and CSV load; loading again writes nothing; the list shows each rate as loaded")
    func loadsAndLists() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let loaded = try await harness.loadRates(Self.ecb, type: "application/xml")
            #expect(loaded.status == .ok, "\(loaded.text)")
            #expect(try loaded.violations(.put, Self.path) == [])
            let load = try loaded.json
            #expect(load["base"] as? String == "EUR")
            #expect(load["written"] as? Int == 4)
            #expect(load["from"] as? String == "2025-01-02")
            #expect(load["to"] as? String == "2025-01-03")
            #expect(load["currencies"] as? [String] == ["GBP", "JPY", "USD"])
            let again = try await harness.loadRates(Self.ecb, type: "text/xml; charset=utf-8")
            #expect(try again.json["written"] as? Int == 0)

            // A CSV of the same base: one rate changed, one new.
            let csv = "date,currency,rate\r\n2025-01-03,USD,1.0300\r\n2025-01-06,USD,1.0426\r\n"
            let fromCSV = try await harness.loadRates(csv, type: "text/csv", query: "?base=EUR")
            #expect(try fromCSV.json["written"] as? Int == 2, "\(fromCSV.text)")

            let listed = try await harness.send(.get, "\(Self.path)?currency=USD")
            #expect(listed.status == .ok)
            #expect(try listed.violations(.get, Self.path) == [])
            let rates = try #require(try listed.json["rates"] as? [[String: Any]])
            #expect(rates.map { $0["day"] as? String } == ["2025-01-02", "2025-01-03", "2025-01-06"])
            #expect(rates.map { $0["rate"] as? String } == ["1.0350", "1.0300", "1.0426"])
            #expect(rates.map { $0["source"] as? String } == ["ecb", "csv", "csv"])
            let range = try await harness.send(.get, "\(Self.path)?from=2025-01-03&to=2025-01-03")
            #expect((try range.json["rates"] as? [[String: Any]])?.map { $0["currency"] as? String } == ["GBP", "USD"])

            // Another app sees none of them.
            let other = try await harness.otherApp(products: [])
            let none = try await other.send(.get, Self.path)
            #expect((try none.json["rates"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("A bad file loads nothing: 422 naming its line; another base needs replace; only files it can read")
    func refusesBadFiles() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let badRate = "date,currency,rate\n2025-01-02,USD,1.03\n2025-01-03,USD,-1\n"
            let refused = try await harness.loadRates(badRate, type: "text/csv", query: "?base=EUR")
            #expect(refused.status == .unprocessableContent)
            #expect(try refused.violations(.put, Self.path) == [])
            #expect(try Self.pointers(refused) == ["#line=3"])
            let badXML = Self.ecb.replacingOccurrences(of: "rate='0.82920'", with: "rat='0.82920'")
            #expect(try Self.pointers(try await harness.loadRates(badXML, type: "application/xml")) == ["#line=10"])
            let twice = "date,currency,rate\n2025-01-02,USD,1.03\n2025-01-02,USD,1.04\n"
            #expect(
                try Self.pointers(try await harness.loadRates(twice, type: "text/csv", query: "?base=EUR"))
                    == ["#line=3"])
            let header = "day,currency,rate\n2025-01-02,USD,1.03\n"
            #expect(
                try Self.pointers(try await harness.loadRates(header, type: "text/csv", query: "?base=EUR"))
                    == ["#line=1"])
            let noBase = try await harness.loadRates("date,currency,rate\n2025-01-02,USD,1.03\n", type: "text/csv")
            #expect(noBase.status == .badRequest)
            let manual = #"{"base":"EUR","rates":[{"day":"2025-01-02","currency":"usd","rate":"1.03"}]}"#
            #expect(try Self.pointers(try await harness.loadRates(manual, type: "application/json")) == ["/rates/0"])
            let plain = try await harness.loadRates("USD 1.03", type: "text/plain")
            #expect(plain.status == .unsupportedMediaType)
            #expect((try await harness.send(.get, Self.path).json["rates"] as? [Any])?.isEmpty == true)

            // Rates against USD by hand; then EUR's file is another base: 409 unless it replaces them.
            let usd = #"{"base":"USD","rates":[{"day":"2025-01-02","currency":"EUR","rate":"0.9662"}]}"#
            #expect(try await harness.loadRates(usd, type: "application/json").status == .ok)
            let conflict = try await harness.loadRates(Self.ecb, type: "application/xml")
            #expect(conflict.status == .conflict)
            #expect(conflict.problemCode == "exchange_rate_base_mismatch")
            #expect(try conflict.violations(.put, Self.path) == [])
            let replaced = try await harness.loadRates(Self.ecb, type: "application/xml", query: "?replace=true")
            #expect(replaced.status == .ok)
            let listed = try #require(try await harness.send(.get, Self.path).json["rates"] as? [[String: Any]])
            #expect(listed.count == 4)
            #expect(listed.allSatisfy { $0["base"] as? String == "EUR" })
            // A public key can do neither.
            #expect(try await harness.send(.get, Self.path, kind: .public).status == .forbidden)
        }
    }

    static func pointers(_ answer: any HTTPAnswer) throws -> [String] {
        #expect(answer.status == .unprocessableContent, "\(answer.text)")
        return (try answer.json["errors"] as? [[String: Any]])?.compactMap { $0["pointer"] as? String } ?? []
    }
}

extension EntitlementsHarness {
    /// `PUT /v1/admin/exchange-rates<query>` with `text` as a body of `type`, signed with the app's secret key.
    func loadRates(_ text: String, type: String, query: String = "") async throws -> any HTTPAnswer {
        let path = "/v1/admin/exchange-rates\(query)"
        let body = Data(text.utf8)
        var headers = HTTPFields.signed(.put, path, appID: appID, body: body)
        headers[.contentType] = type
        return try await client.execute(uri: path, method: .put, headers: headers, body: ByteBuffer(bytes: body))
    }
}
