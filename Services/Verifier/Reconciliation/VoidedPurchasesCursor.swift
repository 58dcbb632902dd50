/// How far the voided-purchases poller has read one app's Play voided purchases (a row of
/// `verifier.google_voided_cursors`): the next window's start, and the window being read with its next page.
///
/// A pass reads a window from the cursor's start up to now, page by page; each page's token is kept as it is read, so a
/// pass cut short resumes at the page it stopped at. A window read to its end moves the start to the window's end less
/// ``overlap``: Google filters by when its systems saw a purchase as voided, and a purchase seen a little late is
/// listed by the next window too. What is listed twice is recognized as applied already (``GoogleVoidedPurchases``), so
/// overlapping costs a lookup, never a second refund.
struct VoidedPurchasesCursor: Sendable, Equatable {
    /// Where the next window starts (UNIX ms); `nil`: as far back as Google keeps voided purchases. While a window is
    /// open, that window's start.
    var nextStartMillis: Int64?
    /// The end of the window being read (UNIX ms, this replica's clock when it opened); `nil` when none is open.
    var windowEndMillis: Int64?
    /// The next page of the open window.
    var pageToken: String?

    /// Google lists voided purchases of the last 30 days; a `startTime` older than that is refused.
    static let retentionMillis: Int64 = 30 * 86_400_000
    /// How far inside those 30 days the oldest window starts, for clocks that disagree.
    static let retentionMarginMillis: Int64 = 10 * 60_000
    /// How much of a window read to its end the next one reads again.
    static let overlapMillis: Int64 = 5 * 60_000

    /// One page request of a pass: the open window's next page, or the first page of a new window.
    struct Request: Sendable, Equatable {
        var startMillis: Int64
        var endMillis: Int64
        var pageToken: String?
    }

    /// What to ask for at `now` (UNIX ms).
    func request(now: Int64) -> Request {
        let oldest = now - Self.retentionMillis + Self.retentionMarginMillis
        let end = windowEndMillis ?? now
        let start = min(max(nextStartMillis ?? oldest, oldest), end)
        return Request(startMillis: start, endMillis: end, pageToken: windowEndMillis == nil ? nil : pageToken)
    }

    /// The cursor once `request`'s page is read; `next` is the token of the page after it, if any.
    func advanced(past request: Request, next: String?) -> VoidedPurchasesCursor {
        if let next, !next.isEmpty {
            return VoidedPurchasesCursor(
                nextStartMillis: request.startMillis, windowEndMillis: request.endMillis, pageToken: next)
        }
        return VoidedPurchasesCursor(
            nextStartMillis: max(request.startMillis, request.endMillis - Self.overlapMillis), windowEndMillis: nil,
            pageToken: nil)
    }

    /// The cursor after Google refused `request`: a page token it no longer knows is dropped, so the window is read
    /// again from its start; a window it refuses is given up, to start again from the oldest time Google allows.
    func restarted(after request: Request) -> VoidedPurchasesCursor {
        if request.pageToken != nil {
            return VoidedPurchasesCursor(
                nextStartMillis: request.startMillis, windowEndMillis: request.endMillis, pageToken: nil)
        }
        return VoidedPurchasesCursor(nextStartMillis: nil, windowEndMillis: nil, pageToken: nil)
    }
}
