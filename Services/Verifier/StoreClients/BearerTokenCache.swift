import Foundation
import NIOConcurrencyHelpers

/// Remembers bearer tokens (App Store Server API JWTs, Google access tokens) until shortly before
/// they expire, so a store call rarely pays for a signature or a token request.
///
/// One token is made at a time per key: callers that find none while another makes it wait for that one instead of
/// each asking the token endpoint (a burst of purchases when a Google token expires asked Google once per purchase).
final class BearerTokenCache: Sendable {
    private struct Entry {
        var token: String
        var renewAfter: Date
    }

    /// What a caller does next.
    private enum Turn {
        case use(String)
        case make
        /// The maker failed: try again (and perhaps make it).
        case retry
    }

    private enum Slot {
        case ready(Entry)
        case making(waiters: [CheckedContinuation<Turn, Never>])
    }

    private let slots = NIOLockedValueBox<[String: Slot]>([:])

    /// The cached token for `key`, or a new one from `make` (which says how long it is good for); while one caller
    /// makes it, the others wait for it. The token is renewed `margin` before it expires. When `make` fails, its
    /// caller gets the error and the waiting ones try again.
    func token(
        for key: String, margin: TimeInterval = 60, now: Date = Date(),
        make: () async throws -> (token: String, lifetime: TimeInterval)
    ) async throws -> String {
        while true {
            let turn: Turn = await withCheckedContinuation { continuation in
                let immediate: Turn? = slots.withLockedValue { slots in
                    switch slots[key] {
                    case .ready(let entry) where entry.renewAfter > now:
                        return .use(entry.token)
                    case .making(let waiters):
                        slots[key] = .making(waiters: waiters + [continuation])
                        return nil
                    case .ready, nil:
                        slots[key] = .making(waiters: [])
                        return .make
                    }
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
            switch turn {
            case .use(let token):
                return token
            case .retry:
                continue
            case .make:
                let made: (token: String, lifetime: TimeInterval)
                do {
                    made = try await make()
                } catch {
                    settle(key, with: nil)
                    throw error
                }
                settle(
                    key,
                    with: Entry(token: made.token, renewAfter: now.addingTimeInterval(max(0, made.lifetime - margin))))
                return made.token
            }
        }
    }

    /// Forgets the token for `key` (after the store refused it); a token being made is left to its maker.
    func forget(_ key: String) {
        slots.withLockedValue { slots in
            if case .ready = slots[key] { slots.removeValue(forKey: key) }
        }
    }

    /// Ends the making of `key`'s token: keeps `entry` and hands it to the waiting callers, or (when making failed)
    /// lets them try again.
    private func settle(_ key: String, with entry: Entry?) {
        let waiters = slots.withLockedValue { slots -> [CheckedContinuation<Turn, Never>] in
            guard case .making(let waiters) = slots[key] else { return [] }
            if let entry {
                slots[key] = .ready(entry)
            } else {
                slots.removeValue(forKey: key)
            }
            return waiters
        }
        for waiter in waiters {
            waiter.resume(returning: entry.map { .use($0.token) } ?? .retry)
        }
    }
}
