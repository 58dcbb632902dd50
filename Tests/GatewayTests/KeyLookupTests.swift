import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Key lookups are single-flight: when a remembered key has expired, the requests that need it share one query.
@Suite struct KeyLookupTests {
    /// Requests sent at once (each over its own connection: ``ConcurrentHTTP`` opens up to 8).
    static let concurrent = 8
    static let path = "/v1/catalog?platform=app_store&app_version=1.0"

    /// A gateway whose key lookups go through a ``CountingAppRepository``; `body` gets the harness, the counter and
    /// the authenticator.
    static func run(
        environment: [String: String] = [:],
        _ body: @Sendable (GatewayHarness, CountingAppRepository, APIKeyAuthenticator) async throws -> Void
    ) async throws {
        let counting = NIOLockedValueBox<CountingAppRepository?>(nil)
        let shared = NIOLockedValueBox<GatewayShared?>(nil)
        let hooks = GatewayHooks(
            keyLookups: { repository in
                let wrapper = CountingAppRepository(repository)
                counting.withLockedValue { $0 = wrapper }
                return wrapper
            },
            built: { built in shared.withLockedValue { $0 = built } })
        // Unless `environment` says otherwise, a remembered answer expires at once (the harness's
        // `SHOPKEEPER_KEY_CACHE_SECONDS=0`): every request comes after expiry.
        try await GatewayHarness.run(environment: environment, hooks: hooks) { gateway in
            let repository = try #require(counting.withLockedValue { $0 })
            let authenticator = try #require(shared.withLockedValue { $0 }?.authenticator)
            try await body(gateway, repository, authenticator)
        }
    }

    /// Sends ``concurrent`` catalog reads with `key` at once, holding the key lookup's answer until every one of
    /// them waits on it (or, without single-flight, until each one's own lookup is held); returns the answers.
    static func concurrentReads(
        _ gateway: GatewayHarness, key: String, repository: CountingAppRepository,
        authenticator: APIKeyAuthenticator, failing: Bool = false
    ) async throws -> [ConcurrentHTTP.Answer] {
        let port = try #require(gateway.client.port)
        repository.resetCount()
        repository.hold()
        return try await withThrowingTaskGroup(of: ConcurrentHTTP.Answer.self) { group in
            for _ in 0..<concurrent {
                group.addTask {
                    try await ConcurrentHTTP.send(port: port, .get, path, headers: [.authorization: "Bearer \(key)"])
                }
            }
            // The lookup's answer is held (not merely on its way: a release before it arrives would miss it) and
            // every request waits on it; or, without single-flight, every request's own lookup is held.
            try await eventually("every request waits on a held key lookup") {
                (repository.held == 1 && authenticator.waitingForLookup(of: key) == concurrent)
                    || repository.held == concurrent
            }
            repository.release(failing: failing)
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func concurrentRequestsAfterExpiryShareOneLookup() async throws {
        try await Self.run { gateway, repository, authenticator in
            let app = try await gateway.createApp("SingleFlight")
            let key = app.publicKey.key
            #expect(try await gateway.send(.get, Self.path, bearer: key).status == .ok)
            #expect(repository.lookups == 1)

            let answers = try await Self.concurrentReads(
                gateway, key: key, repository: repository, authenticator: authenticator)
            #expect(answers.map(\.status) == Array(repeating: .ok, count: Self.concurrent))
            #expect(repository.lookups == 1, "\(Self.concurrent) requests after expiry, one database lookup")
            #expect(authenticator.waitingForLookup(of: key) == 0)
        }
    }

    @Test func aFailedLookupIsSharedAndNotRemembered() async throws {
        try await Self.run { gateway, repository, authenticator in
            let app = try await gateway.createApp("SingleFlightFailure")
            let key = app.publicKey.key
            #expect(try await gateway.send(.get, Self.path, bearer: key).status == .ok)

            // The one lookup fails: every request that waited on it gets the same retryable answer...
            let answers = try await Self.concurrentReads(
                gateway, key: key, repository: repository, authenticator: authenticator, failing: true)
            #expect(repository.lookups == 1)
            for answer in answers {
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.headers[.retryAfter] == "1")
                #expect(try TestJSON.object(answer.body.readableBytesView)["code"] as? String == "database_unavailable")
            }
            // ...and nothing is remembered: the next request asks again, and gets in.
            #expect(try await gateway.send(.get, Self.path, bearer: key).status == .ok)
            #expect(repository.lookups == 2)
        }
    }

    @Test func aRevocationDuringALookupIsNotUndoneByIt() async throws {
        try await Self.run(environment: ["SHOPKEEPER_KEY_CACHE_SECONDS": "60"]) { gateway, repository, _ in
            let app = try await gateway.createApp("SingleFlightRevocation")
            let key = app.publicKey.key
            let port = try #require(gateway.client.port)
            repository.hold()
            // A lookup has found the key valid, and its answer is on its way, when the key is revoked through this
            // replica.
            let read = Task {
                try await ConcurrentHTTP.send(port: port, .get, Self.path, headers: [.authorization: "Bearer \(key)"])
            }
            try await eventually("the lookup is held") { repository.held == 1 }
            let revoked = try await gateway.send(
                .delete, "/operator/v1/apps/\(app.info.appID)/keys/\(app.publicKey.info.keyID)",
                bearer: GatewayHarness.operatorKey)
            #expect(revoked.status == .ok)
            repository.release()
            #expect(try await read.value.status == .ok)
            // The answer read before the revocation was not kept: the key is refused at once, not for a minute.
            let refused = try await gateway.send(.get, Self.path, bearer: key)
            #expect(refused.status == .unauthorized)
            #expect(try code(refused) == "invalid_api_key")
        }
    }
}
