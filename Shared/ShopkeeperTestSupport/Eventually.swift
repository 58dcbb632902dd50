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

/// Reads with `read` until `condition` holds for what it returns, or `timeout` passes; returns the last value read, so
/// the test's own expectation says what was seen when the condition never held.
package func eventually<Value>(
    timeout: Duration = .seconds(20), _ read: () async throws -> Value, until condition: (Value) -> Bool
) async throws -> Value {
    let deadline = ContinuousClock.now + timeout
    var value = try await read()
    while !condition(value) && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
        value = try await read()
    }
    return value
}

/// A condition a test waited for (``eventually(timeout:_:_:)``) did not hold in time.
package struct ConditionTimedOut: Error, CustomStringConvertible {
    package var message: String
    package var description: String { "timed out: \(message)" }
}
