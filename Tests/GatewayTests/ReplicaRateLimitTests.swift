import ShopkeeperCore
import Testing

@testable import Gateway

/// The rate limits are the deployment's: with `SHOPKEEPER_GATEWAY_REPLICAS` replicas, each enforces its share, so the
/// replicas together admit what was configured, however the load balancer spreads the requests.
@Suite struct ReplicaRateLimitTests {
    @Test func eachReplicaEnforcesItsShare() throws {
        let settings = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_GATEWAY_REPLICAS": "4"]))
        #expect(settings.replicas == 4)
        #expect(settings.rateLimits.publicKeys == RateLimit(perSecond: 250, burst: 500))
        #expect(settings.rateLimits.publicClients == RateLimit(perSecond: 5, burst: 10))
        #expect(settings.rateLimits.secretKeys == RateLimit(perSecond: 25, burst: 50))
        #expect(settings.console.signInLimit == RateLimit(perSecond: 0.025, burst: 2.5))
        // One replica (the default) enforces the configured limits as they are.
        let single = try GatewaySettings.read(from: EnvironmentReader([:]))
        #expect(single.replicas == 1)
        #expect(single.rateLimits.secretKeys == RateLimit(perSecond: 100, burst: 200))
        #expect(single.console.signInLimit == RateLimit(perSecond: 0.1, burst: 10))
    }

    /// (settings, the variable the error must name)
    @Test(arguments: [
        (["SHOPKEEPER_GATEWAY_REPLICAS": "0"], "SHOPKEEPER_GATEWAY_REPLICAS"),
        (["SHOPKEEPER_GATEWAY_REPLICAS": "two"], "SHOPKEEPER_GATEWAY_REPLICAS"),
        // A share whose burst is below one request would refuse every request.
        (["SHOPKEEPER_GATEWAY_REPLICAS": "3", "SHOPKEEPER_RATE_LIMIT_SECRET": "10/2"], "SHOPKEEPER_RATE_LIMIT_SECRET"),
        (["SHOPKEEPER_GATEWAY_REPLICAS": "50"], "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
        (["SHOPKEEPER_GATEWAY_REPLICAS": "20"], "SHOPKEEPER_CONSOLE_SIGN_IN_RATE"),
    ])
    func sharesTooSmallToAdmitARequestAreRefused(environment: [String: String], expected: String) {
        #expect {
            _ = try GatewaySettings.read(from: EnvironmentReader(environment))
        } throws: { error in
            (error as? ConfigurationError)?.variable == expected
        }
    }

    /// Two replicas, each with its own buckets in memory: spread evenly (a request balancer) they admit the configured
    /// burst between them, never more; all on one replica (a connection pinned to it) they admit its share.
    @Test func replicasTogetherAdmitTheConfiguredLimit() throws {
        let settings = try GatewaySettings.read(
            from: EnvironmentReader(["SHOPKEEPER_GATEWAY_REPLICAS": "2", "SHOPKEEPER_RATE_LIMIT_SECRET": "10/40"]))
        let limit = settings.rateLimits.secretKeys
        let replicas = [TokenBucketRateLimiter(maximumClients: 1000), TokenBucketRateLimiter(maximumClients: 1000)]
        let now = ContinuousClock.now
        var admitted = 0
        for request in 0..<200 where replicas[request % 2].acquire(key: "sk_1", limit: limit, now: now) == nil {
            admitted += 1
        }
        #expect(admitted == 40)
        let pinned = TokenBucketRateLimiter(maximumClients: 1000)
        let alone = (0..<200).filter { _ in pinned.acquire(key: "sk_1", limit: limit, now: now) == nil }.count
        #expect(alone == 20)
        // A second later, each replica has refilled its share of the rate: 10 requests in all.
        let later = now.advanced(by: .seconds(1))
        var refilled = 0
        for request in 0..<200 where replicas[request % 2].acquire(key: "sk_1", limit: limit, now: later) == nil {
            refilled += 1
        }
        #expect(refilled == 10)
    }
}
