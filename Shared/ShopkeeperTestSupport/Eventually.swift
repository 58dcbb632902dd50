/// Polls `condition` until it holds; throws ``ConditionTimedOut`` with `message` after `timeout`. For tests that wait
/// for something another task or process does (a background worker, a change notification): they wait for the
/// condition, never for a fixed time.
package func eventually(
    timeout: Duration = .seconds(30), _ message: String, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ConditionTimedOut(message: message) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A condition a test waited for (``eventually(timeout:_:_:)``) did not hold in time.
package struct ConditionTimedOut: Error, CustomStringConvertible {
    package var message: String
    package var description: String { "timed out: \(message)" }
}
