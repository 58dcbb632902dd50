/// An injected fault: the next `remaining` calls to an endpoint are delayed, fail, or (`verifyReceipt`) answer an
/// Apple status.
struct Fault: Sendable, Equatable {
    /// `nil` matches every endpoint (`*`).
    var endpoint: StoreEndpoint?
    var remaining: Int
    /// The HTTP status to fail with (429 or 5xx).
    var status: Int?
    /// The `status` a `verifyReceipt` answer carries (e.g. 21005); only applies to `verifyReceipt` endpoints.
    var appleStatus: Int?
    var delayMilliseconds: Int?

    func applies(to candidate: StoreEndpoint) -> Bool {
        guard remaining > 0, endpoint == nil || endpoint == candidate else { return false }
        return appleStatus == nil || candidate.isVerifyReceipt
    }
}

/// What a call has to suffer because of a fault.
struct FaultAction: Sendable, Equatable {
    var delay: Duration?
    var status: Int?
    var appleStatus: Int?
}

/// Counts every call to every store endpoint and hands out injected faults. Not persisted: a restart clears both.
actor StoreTraffic {
    private var counts: [StoreEndpoint: Int] = [:]
    private var faults: [Fault] = []
    /// The access tokens the Play Developer API accepted, so a test can tell whether a client reused its token (the
    /// token endpoint's count also holds requests from other clients of the same service account).
    private var presentedAccessTokens: Set<String> = []

    /// Counts a call to `endpoint` and consumes the first fault that applies to it.
    func record(_ endpoint: StoreEndpoint) -> FaultAction? {
        counts[endpoint, default: 0] += 1
        guard let index = faults.firstIndex(where: { $0.applies(to: endpoint) }) else { return nil }
        faults[index].remaining -= 1
        let fault = faults[index]
        if fault.remaining == 0 { faults.remove(at: index) }
        return FaultAction(
            delay: fault.delayMilliseconds.map { .milliseconds($0) }, status: fault.status,
            appleStatus: fault.appleStatus)
    }

    func add(_ fault: Fault) {
        faults.append(fault)
    }

    func clearFaults() {
        faults.removeAll()
    }

    /// The faults still waiting.
    func pendingFaults() -> [Fault] {
        faults
    }

    /// Calls per endpoint name since start (or the last reset); every endpoint is listed, zero included.
    func callCounts() -> [String: Int] {
        Dictionary(uniqueKeysWithValues: StoreEndpoint.allCases.map { ($0.rawValue, counts[$0, default: 0]) })
    }

    /// Notes an access token the Play Developer API accepted.
    func presented(accessToken: String) {
        presentedAccessTokens.insert(accessToken)
    }

    /// How many different access tokens the Play Developer API accepted since start (or the last reset).
    func presentedAccessTokenCount() -> Int {
        presentedAccessTokens.count
    }

    func resetCounts() {
        counts.removeAll()
        presentedAccessTokens.removeAll()
    }
}
