/// Runs `operation` to the end even when the calling task is cancelled: a background job shutting down still
/// records what it must (hands a claimed lease back, saves a cursor) instead of leaving it for the lease to run out.
///
/// The operation runs in a new unstructured task, which does not inherit the caller's cancellation; the caller
/// waits for it. Keep it short: a graceful shutdown waits for it too.
package func uncancelled<Success: Sendable>(
    _ operation: sending @escaping @isolated(any) () async -> Success
) async -> Success {
    await Task(operation: operation).value
}

/// ``uncancelled(_:)`` for an operation that throws: its error is rethrown to the caller.
package func uncancelled<Success: Sendable>(
    _ operation: sending @escaping @isolated(any) () async throws -> Success
) async throws -> Success {
    try await Task(operation: operation).value
}
