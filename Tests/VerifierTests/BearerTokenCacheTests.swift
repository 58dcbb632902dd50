import Foundation
import NIOConcurrencyHelpers
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// Store tokens are made once per key at a time: a burst of calls when a token expires asks the token endpoint once.
@Suite struct BearerTokenCacheTests {
    struct Refused: Error {}

    /// Lets a token's making go on only when the test says so, and counts the makings.
    final class Maker: Sendable {
        let made = NIOLockedValueBox(0)
        let released = NIOLockedValueBox(false)

        func release() { released.withLockedValue { $0 = true } }

        func make(failing: Bool = false) async throws -> (token: String, lifetime: TimeInterval) {
            let number = made.withLockedValue { count in
                count += 1
                return count
            }
            while !released.withLockedValue({ $0 }) { await Task.yield() }
            if failing { throw Refused() }
            return ("token-\(number)", 3_600)
        }
    }

    @Test("Fifty callers at once while no token is cached: one making, every caller gets its token")
    func concurrentCallersShareOneMaking() async throws {
        let cache = BearerTokenCache()
        let maker = Maker()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask { try await cache.token(for: "google/key") { try await maker.make() } }
            }
            // Every caller is in: the first one making, the others waiting (or about to find the made token).
            try await eventually("the first caller makes a token") { maker.made.withLockedValue { $0 } == 1 }
            maker.release()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 50)
        #expect(Set(tokens) == ["token-1"])
        #expect(maker.made.withLockedValue { $0 } == 1)
        // Cached now: no more making.
        #expect(try await cache.token(for: "google/key") { try await maker.make() } == "token-1")
        #expect(maker.made.withLockedValue { $0 } == 1)
    }

    @Test("A making that fails fails its caller; a caller that waited tries again and makes its own")
    func aFailedMakingLetsTheWaitersTryAgain() async throws {
        let cache = BearerTokenCache()
        let failing = Maker()
        let succeeding = Maker()
        let first = Task { try await cache.token(for: "apple/key") { try await failing.make(failing: true) } }
        try await eventually("the failing making started") { failing.made.withLockedValue { $0 } == 1 }
        let second = Task { try await cache.token(for: "apple/key") { try await succeeding.make() } }
        failing.release()
        await #expect(throws: Refused.self) { try await first.value }
        try await eventually("the waiter makes its own") { succeeding.made.withLockedValue { $0 } == 1 }
        succeeding.release()
        #expect(try await second.value == "token-1")
    }
}
