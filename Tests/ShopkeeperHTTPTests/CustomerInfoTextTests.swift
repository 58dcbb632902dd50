import Foundation
import PostgresNIO
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperTestSupport
import Testing

/// Customer info is completed in Swift (``CustomerInfoText``) from a body PostgreSQL rendered; the id and the time
/// must read as the SQL that used to write them wrote them (`to_json`, `entitlements.iso`), byte for byte, or every
/// client's entity tag would change once and the two halves of the document would quote differently. PostgreSQL is
/// the oracle here.
@Suite struct CustomerInfoTextTests {
    static let ids = [
        "plain", "with \"quotes\" and \\ backslash", "tab\there", "bell\u{07}", "back\u{08}space", "form\u{0C}feed",
        "unit\u{1F}separator", "carriage\rreturn", "émoji 🌻 and 中文", "slash/and+plus%2F", "delete\u{7F}",
    ]

    @Test("An app user id is quoted as PostgreSQL's to_json quotes it")
    func idsQuoteAsPostgreSQLDoes() async throws {
        try await TestDatabase.withClient { client in
            for id in Self.ids {
                let rows = try await client.query("SELECT to_json(\(id)::text)::text")
                for try await expected in rows.decode(String.self) {
                    #expect(JSONString.quoted(id) == expected, "\(id.debugDescription)")
                }
            }
        }
    }

    @Test("A time is written as entitlements.iso writes it: UTC, to the second, fractions cut")
    func timesWriteAsPostgreSQLDoes() async throws {
        let times = [
            "2026-11-27 03:29:11+00", "2026-11-27 03:29:11.999999+00", "2026-11-27 03:29:12.000001+00",
            "2024-02-29 23:59:59.5+00", "2024-03-01 00:00:00+00", "1999-12-31 23:59:59+00", "2000-01-01 00:00:00+00",
            "1970-01-01 00:00:00+00", "1969-12-31 23:59:59.25+00", "2100-03-01 12:00:00+05", "2038-01-19 03:14:08+00",
        ]
        try await TestDatabase.withClient { client in
            for time in times {
                let rows = try await client.query(
                    """
                    SELECT \(time)::timestamptz,
                           to_char(\(time)::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    """)
                for try await (date, expected) in rows.decode((Date, String).self) {
                    #expect(CustomerInfoText.timestamp(date) == expected, "\(time)")
                }
            }
        }
    }

    @Test("The info is the stored body after app_user_id and last_seen")
    func assembly() throws {
        let lastSeen = Date(timeIntervalSince1970: 1_795_750_151)
        let json = CustomerInfoText.assemble(
            body: #"{"aliases":["a"],"entitlements":{}}"#, appUserID: "a\"b", lastSeen: lastSeen)
        #expect(
            json == #"{"app_user_id":"a\"b","last_seen":"2026-11-27T03:29:11Z","aliases":["a"],"entitlements":{}}"#)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(decoded?["app_user_id"] as? String == "a\"b")
        #expect(CustomerInfoText.etag(of: json).count == 26)
        #expect(CustomerInfoText.etag(of: json) != CustomerInfoText.etag(of: json + " "))
    }
}
