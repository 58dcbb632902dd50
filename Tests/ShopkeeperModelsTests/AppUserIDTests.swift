import ShopkeeperModels
import Testing

/// The one spelling of an app user id in a path, and the rule every service applies to one.
@Suite struct AppUserIDTests {
    @Test(arguments: [
        ("anon_3F2504E0-4F89-11D3-9A0C-0305E82C3301", "anon_3F2504E0-4F89-11D3-9A0C-0305E82C3301"),
        ("mail@example.com:1", "mail@example.com:1"),
        ("a b", "a%20b"),
        ("bob%41", "bob%2541"),
        ("x/y", "x%2Fy"),
        ("x+y", "x%2By"),
        ("\u{E9}", "%C3%A9"),
        ("\u{1F331}", "%F0%9F%8C%B1"),
        (".", "%2E"),
        ("..", "%2E%2E"),
        ("a.b", "a.b"),
    ])
    func canonicalSegmentsRoundTrip(id: String, segment: String) throws {
        #expect(AppUserID.segment(id) == segment)
        #expect(try AppUserID.decode(canonicalSegment: segment[...]) == id)
        #expect(try AppUserID.decode(segment: segment[...]) == id)
    }

    @Test(arguments: [
        ("bob%41", "bobA"),
        ("%62obA", "bobA"),
        ("a%20%62", "a b"),
        ("x%2fy", "x/y"),
        ("e%CC%81", "\u{E9}"),
        ("mail%40example.com", "mail@example.com"),
    ])
    func otherSpellingsDecodeToTheCanonicalIdButServicesRefuseThem(segment: String, id: String) throws {
        #expect(try AppUserID.decode(segment: segment[...]) == id)
        #expect(throws: AppUserID.Problem.notCanonical) { try AppUserID.decode(canonicalSegment: segment[...]) }
    }

    @Test(arguments: [
        ("%ZZ", AppUserID.Problem.malformedEncoding),
        ("abc%4", .malformedEncoding),
        ("%", .malformedEncoding),
        ("%FF", .malformedEncoding),
        ("%C3", .malformedEncoding),
        ("%00", .invalid),
        ("a%0Ab", .invalid),
        ("a%0Db", .invalid),
        ("a%09b", .invalid),
        (".", .invalid),
        ("..", .invalid),
        (String(repeating: "k", count: 257), .invalid),
    ])
    func brokenSegmentsAreRefused(segment: String, problem: AppUserID.Problem) {
        #expect(throws: problem) { try AppUserID.decode(segment: segment[...]) }
    }

    @Test func theRuleCountsCharactersInNFC() throws {
        #expect(try AppUserID.canonical(String(repeating: "k", count: 256)).count == 256)
        #expect(throws: AppUserID.Problem.invalid) { try AppUserID.canonical(String(repeating: "k", count: 257)) }
        // 256 decomposed characters are 512 scalars, and 256 characters in NFC.
        let decomposed = String(repeating: "u\u{308}", count: 256)
        let canonical = try AppUserID.canonical(decomposed)
        #expect(canonical.unicodeScalars.count == 256)
        #expect(canonical == String(repeating: "\u{FC}", count: 256))
        #expect(throws: AppUserID.Problem.invalid) { try AppUserID.canonical("") }
        #expect(throws: AppUserID.Problem.invalid) { try AppUserID.canonical("a\u{0}b") }
        #expect(throws: AppUserID.Problem.invalid) { try AppUserID.canonical("a\u{85}b") }
    }
}
