import Testing

@testable import Verifier

/// The voided-purchases poller's cursor: which window and page it asks for, and where it goes after each answer.
@Suite struct VoidedPurchasesCursorTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = 1_800_000_000_000
    static let oldest = now - VoidedPurchasesCursor.retentionMillis + VoidedPurchasesCursor.retentionMarginMillis

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var cursor: VoidedPurchasesCursor
        var request: VoidedPurchasesCursor.Request
        var testDescription: String { name }
    }

    static let requests: [Case] = [
        Case(
            name: "a new app starts as far back as Google keeps",
            cursor: VoidedPurchasesCursor(),
            request: .init(startMillis: oldest, endMillis: now, pageToken: nil)),
        Case(
            name: "a later poll starts where the last window left off",
            cursor: VoidedPurchasesCursor(nextStartMillis: now - 600_000),
            request: .init(startMillis: now - 600_000, endMillis: now, pageToken: nil)),
        Case(
            name: "a start older than Google keeps is moved up",
            cursor: VoidedPurchasesCursor(nextStartMillis: now - 40 * day),
            request: .init(startMillis: oldest, endMillis: now, pageToken: nil)),
        Case(
            name: "an open window goes on with its next page, its end unchanged",
            cursor: VoidedPurchasesCursor(nextStartMillis: now - day, windowEndMillis: now - 5_000, pageToken: "p2"),
            request: .init(startMillis: now - day, endMillis: now - 5_000, pageToken: "p2")),
        Case(
            name: "an open window whose token was dropped is read again from its start",
            cursor: VoidedPurchasesCursor(nextStartMillis: now - day, windowEndMillis: now - 5_000),
            request: .init(startMillis: now - day, endMillis: now - 5_000, pageToken: nil)),
        Case(
            name: "a start after the end (a clock that went back) asks for the end",
            cursor: VoidedPurchasesCursor(nextStartMillis: now + 60_000),
            request: .init(startMillis: now, endMillis: now, pageToken: nil)),
    ]

    @Test(arguments: requests) func request(_ test: Case) {
        #expect(test.cursor.request(now: Self.now) == test.request)
    }

    @Test func aWindowIsReadPageByPageAndTheNextOneOverlapsItsEnd() {
        var cursor = VoidedPurchasesCursor(nextStartMillis: Self.now - 600_000)
        let first = cursor.request(now: Self.now)
        cursor = cursor.advanced(past: first, next: "p2")
        #expect(
            cursor
                == VoidedPurchasesCursor(
                    nextStartMillis: Self.now - 600_000, windowEndMillis: Self.now, pageToken: "p2"))
        // Later pages belong to the same window, whatever the time.
        let second = cursor.request(now: Self.now + 30_000)
        #expect(second == .init(startMillis: Self.now - 600_000, endMillis: Self.now, pageToken: "p2"))
        cursor = cursor.advanced(past: second, next: nil)
        #expect(
            cursor
                == VoidedPurchasesCursor(
                    nextStartMillis: Self.now - VoidedPurchasesCursor.overlapMillis, windowEndMillis: nil,
                    pageToken: nil))
        // An empty token is no page.
        #expect(VoidedPurchasesCursor().advanced(past: first, next: "").windowEndMillis == nil)
    }

    @Test func aShortWindowNeverMovesTheStartBack() {
        let request = VoidedPurchasesCursor.Request(startMillis: Self.now - 1_000, endMillis: Self.now, pageToken: nil)
        #expect(VoidedPurchasesCursor().advanced(past: request, next: nil).nextStartMillis == Self.now - 1_000)
    }

    @Test func aRefusedPageTokenReadsTheWindowAgainAndARefusedWindowStartsOver() {
        let page = VoidedPurchasesCursor.Request(startMillis: 5, endMillis: 9, pageToken: "gone")
        #expect(
            VoidedPurchasesCursor().restarted(after: page)
                == VoidedPurchasesCursor(nextStartMillis: 5, windowEndMillis: 9, pageToken: nil))
        let window = VoidedPurchasesCursor.Request(startMillis: 5, endMillis: 9, pageToken: nil)
        #expect(VoidedPurchasesCursor(nextStartMillis: 5).restarted(after: window) == VoidedPurchasesCursor())
    }
}
