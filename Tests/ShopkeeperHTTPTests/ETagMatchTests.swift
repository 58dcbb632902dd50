import ShopkeeperHTTP
import Testing

/// `If-None-Match` evaluation (RFC 9110 section 13.1.2): the services and both gateway paths rely on it for 304s.
@Suite struct ETagMatchTests {
    struct Case: Sendable, CustomStringConvertible {
        var header: String
        var matches: Bool
        var description: String { "\(header) -> \(matches)" }
    }

    static let etag = "\"abc123\""

    static let cases: [Case] = [
        Case(header: "\"abc123\"", matches: true),
        Case(header: "W/\"abc123\"", matches: true),
        Case(header: "*", matches: true),
        Case(header: "\"other\", \"abc123\"", matches: true),
        Case(header: "\"other\",W/\"abc123\"", matches: true),
        Case(header: " \t\"abc123\" ", matches: true),
        Case(header: "\"other\"", matches: false),
        Case(header: "abc123", matches: false),
        Case(header: "\"abc1234\"", matches: false),
        Case(header: "W/", matches: false),
        Case(header: "w/\"abc123\"", matches: false),
        Case(header: "", matches: false),
        Case(header: ",,", matches: false),
    ]

    @Test(arguments: cases) func evaluates(_ example: Case) {
        #expect(ETagMatch.matches(example.header, etag: Self.etag) == example.matches)
    }
}
