import Foundation
import HTTPTypes
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// A public key's rate limit is per client (its address) under an app-wide ceiling: one client that exhausts its
/// bucket does not lock out the app's other users. Each caller here connects from an address of its own.
@Suite struct ClientRateLimitTests {
    static let path = "/v1/catalog?platform=app_store&app_version=1.0"
    static let ann = LoopbackClient(address: "127.0.0.2")
    static let bob = LoopbackClient(address: "127.0.0.3")
    static let carl = LoopbackClient(address: "127.0.0.4")

    /// `GET path` from `client` with `key`, plus `headers`.
    static func read(
        _ gateway: GatewayHarness, _ client: LoopbackClient, key: String, _ headers: [(String, String)] = []
    ) async throws -> LoopbackClient.Answer {
        let port = try #require(gateway.client.port)
        return try await client.get(port: port, path, headers: [("Authorization", "Bearer \(key)")] + headers)
    }

    /// Asserts a 429 `rate_limited` with a `Retry-After` of at least a second.
    static func expectLimited(_ answer: LoopbackClient.Answer, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        #expect(answer.status == 429, sourceLocation: sourceLocation)
        #expect(try answer.problemCode == "rate_limited", sourceLocation: sourceLocation)
        #expect((answer.headers["retry-after"].flatMap(Int.init) ?? 0) >= 1, sourceLocation: sourceLocation)
    }

    /// Through the router (`0`: every request looks its key up) and through the channel path (`60`: the key is
    /// remembered after the first request, and reads are answered below the router).
    @Test(arguments: ["0", "60"])
    func oneClientExhaustingItsBucketLeavesTheOthersAlone(keyCacheSeconds: String) async throws {
        let environment = [
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "0.01/3", "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS": "0.01/3",
            "SHOPKEEPER_KEY_CACHE_SECONDS": keyCacheSeconds,
        ]
        try await GatewayHarness.run(environment: environment) { gateway in
            let app = try await gateway.createApp("PerClient")
            let key = app.publicKey.key
            for _ in 0..<3 { #expect(try await Self.read(gateway, Self.ann, key: key).status == 200) }
            try Self.expectLimited(try await Self.read(gateway, Self.ann, key: key))
            // Whatever the client says about itself changes nothing: ids and forwarded addresses are its own choice.
            try Self.expectLimited(
                try await Self.read(
                    gateway, Self.ann, key: key,
                    [
                        ("X-Forwarded-For", "198.51.100.1"), ("X-Device-ID", "another-device"),
                        ("X-Real-IP", "192.0.2.9"),
                    ]
                ))
            // Another client of the same app is served.
            #expect(try await Self.read(gateway, Self.bob, key: key).status == 200)
            // The secret key has its own bucket.
            #expect(try await Self.read(gateway, Self.ann, key: app.secretKey.key).status == 200)
        }
    }

    /// Carrier NAT: 200 phones behind one address, each its own customer, open the app at once (the catalog, then
    /// their customer info twice).
    /// They share the address's coarse limit, not one phone's: none is throttled. One client hammering one customer
    /// from the same address still is, and only it. (Rates of 0.01/s: the buckets do not refill while the test
    /// runs, so nothing depends on its speed.)
    @Test(arguments: ["0", "60"])
    func customersBehindOneAddressAreNotThrottledAsOneClient(keyCacheSeconds: String) async throws {
        let environment = [
            "SHOPKEEPER_RATE_LIMIT_PUBLIC": "0.01/2000", "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS": "0.01/1000",
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "0.01/40", "SHOPKEEPER_KEY_CACHE_SECONDS": keyCacheSeconds,
        ]
        try await GatewayHarness.run(environment: environment) { gateway in
            let app = try await gateway.createApp("CarrierNAT")
            let key = app.publicKey.key
            let port = try #require(gateway.client.port)
            let auth = [("Authorization", "Bearer \(key)")]
            var throttled = 0
            for phone in 0..<200 {
                let customer = "/v1/customers/anon_\(UUID().uuidString.lowercased())-\(phone)"
                for path in [Self.path, customer, customer] {
                    let answer = try await Self.ann.get(port: port, path, headers: auth)
                    if answer.status == 429 { throttled += 1 }
                    #expect(answer.status == 200, "phone \(phone): \(path)")
                }
            }
            #expect(throttled == 0)
            // One client hammering one customer: its 40 and no more.
            let hammered = "/v1/customers/abuser"
            for _ in 0..<40 { #expect(try await Self.ann.get(port: port, hammered, headers: auth).status == 200) }
            try Self.expectLimited(try await Self.ann.get(port: port, hammered, headers: auth))
            // Spelled another way, it is the same customer's bucket.
            try Self.expectLimited(try await Self.ann.get(port: port, "/v1/customers/%61buser", headers: auth))
            // The phones behind the same address go on.
            #expect(try await Self.ann.get(port: port, "/v1/customers/anon_next", headers: auth).status == 200)
            #expect(try await Self.ann.get(port: port, Self.path, headers: auth).status == 200)
        }
    }

    @Test func theAppWideCeilingStillApplies() async throws {
        let environment = [
            "SHOPKEEPER_RATE_LIMIT_PUBLIC": "0.01/4", "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "0.01/3",
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS": "0.01/3",
        ]
        try await GatewayHarness.run(environment: environment) { gateway in
            let app = try await gateway.createApp("Ceiling")
            let other = try await gateway.createApp("CeilingOther")
            let key = app.publicKey.key
            for _ in 0..<3 { #expect(try await Self.read(gateway, Self.ann, key: key).status == 200) }
            // Refused by its own bucket: that costs the app's ceiling nothing.
            for _ in 0..<3 { try Self.expectLimited(try await Self.read(gateway, Self.ann, key: key)) }
            #expect(try await Self.read(gateway, Self.bob, key: key).status == 200)
            // Four requests: the app's ceiling is spent, for every client.
            try Self.expectLimited(try await Self.read(gateway, Self.bob, key: key))
            try Self.expectLimited(try await Self.read(gateway, Self.carl, key: key))
            // Ceilings are per key.
            #expect(try await Self.read(gateway, Self.carl, key: other.publicKey.key).status == 200)
        }
    }

    @Test func secretKeysKeepOneBucketPerKey() async throws {
        try await GatewayHarness.run(environment: ["SHOPKEEPER_RATE_LIMIT_SECRET": "0.01/2"]) { gateway in
            let app = try await gateway.createApp("SecretBucket")
            for _ in 0..<2 { #expect(try await Self.read(gateway, Self.ann, key: app.secretKey.key).status == 200) }
            // A secret key is one server's: its limit counts all its requests, wherever they come from.
            try Self.expectLimited(try await Self.read(gateway, Self.bob, key: app.secretKey.key))
            #expect(try await Self.read(gateway, Self.bob, key: app.publicKey.key).status == 200)
        }
    }

    @Test func forwardedAddressesCountOnlyFromTrustedProxies() async throws {
        let environment = [
            "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT": "0.01/2", "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS": "0.01/2",
            // Ann plays the load balancer.
            "SHOPKEEPER_GATEWAY_TRUSTED_PROXIES": "127.0.0.2",
        ]
        try await GatewayHarness.run(environment: environment) { gateway in
            let app = try await gateway.createApp("Forwarded")
            let key = app.publicKey.key
            let dora = [("X-Forwarded-For", "198.51.100.7")]
            for _ in 0..<2 { #expect(try await Self.read(gateway, Self.ann, key: key, dora).status == 200) }
            try Self.expectLimited(try await Self.read(gateway, Self.ann, key: key, dora))
            // Another client behind the same balancer.
            #expect(
                try await Self.read(gateway, Self.ann, key: key, [("X-Forwarded-For", "198.51.100.8")]).status == 200)
            // Dora writing a new address of her own in front changes nothing: the balancer appended hers.
            try Self.expectLimited(
                try await Self.read(gateway, Self.ann, key: key, [("X-Forwarded-For", "203.0.113.9, 198.51.100.7")]))
            // From a caller that is not a trusted proxy, the header is ignored: Bob is Bob.
            for address in ["198.51.100.20", "198.51.100.21"] {
                #expect(
                    try await Self.read(gateway, Self.bob, key: key, [("X-Forwarded-For", address)]).status == 200)
            }
            try Self.expectLimited(
                try await Self.read(gateway, Self.bob, key: key, [("X-Forwarded-For", "198.51.100.22")]))
        }
    }
}

/// The limiter's memory and the rule that names a client, without a server.
@Suite struct ClientBucketTests {
    @Test func aFloodOfNewAddressesKeepsMemoryBounded() {
        let maximum = 2000
        let limiter = TokenBucketRateLimiter(maximumClients: maximum)
        // A token taken comes back after 10 s: every flooding address keeps a bucket for that long.
        let client = RateLimit(perSecond: 0.1, burst: 2)
        let ceiling = RateLimit(perSecond: 1e9, burst: 1e9)
        var now = ContinuousClock.now
        let abuser = ClientKey.ipv4(0x0A00_0001)
        for _ in 0..<2 {
            #expect(limiter.acquire(key: "k", client: abuser, clientLimit: client, ceiling: ceiling, now: now) == nil)
        }
        #expect(limiter.acquire(key: "k", client: abuser, clientLimit: client, ceiling: ceiling, now: now) != nil)
        // 50,000 new addresses in five seconds.
        var most = 0
        var refused = 0
        for address in UInt32(1)...50_000 {
            now += .microseconds(100)
            let clientKey = ClientKey.ipv4(0xC000_0000 | address)
            if limiter.acquire(key: "k", client: clientKey, clientLimit: client, ceiling: ceiling, now: now) != nil {
                refused += 1
            }
            most = max(most, limiter.clientBucketCount)
        }
        #expect(most <= maximum)
        // New callers are never refused for want of room (the ceiling still holds them)...
        #expect(refused == 0)
        // ...and the flood did not push out the bucket of the client it was limiting.
        #expect(limiter.acquire(key: "k", client: abuser, clientLimit: client, ceiling: ceiling, now: now) != nil)
        // Once the buckets have refilled, the next new caller sweeps them out.
        now += .seconds(60)
        _ = limiter.acquire(key: "k", client: .ipv4(0x0B00_0001), clientLimit: client, ceiling: ceiling, now: now)
        #expect(limiter.clientBucketCount == 1)
    }

    /// (peer, X-Forwarded-For values, trusted proxies, the client it counts as)
    @Test(
        arguments: [
            ("192.0.2.1", [], "", "192.0.2.1"),
            // A dual-stack listener's view of an IPv4 peer.
            ("::ffff:192.0.2.1", [], "", "192.0.2.1"),
            // IPv6 clients are counted by /64.
            ("2001:db8:1:2::1", [], "", "2001:db8:1:2:ffff::9"),
            // Not trusted: the header is the client's own text.
            ("192.0.2.1", ["198.51.100.7"], "", "192.0.2.1"),
            ("10.1.2.3", ["198.51.100.7"], "10.0.0.0/8", "198.51.100.7"),
            ("10.1.2.3", ["203.0.113.9, 198.51.100.7"], "10.0.0.0/8", "198.51.100.7"),
            ("10.1.2.3", ["198.51.100.7, 10.0.0.5"], "10.0.0.0/8", "198.51.100.7"),
            ("10.1.2.3", ["203.0.113.9", "198.51.100.7"], "10.0.0.0/8", "198.51.100.7"),
            ("10.1.2.3", ["[2001:db8:9::1]"], "10.0.0.0/8", "2001:db8:9::2"),
            // A malformed entry ends the walk at the last trusted hop.
            ("10.1.2.3", ["198.51.100.7, not-an-address"], "10.0.0.0/8", "10.1.2.3"),
            ("10.1.2.3", ["10.0.0.9"], "10.0.0.0/8", "10.0.0.9"),
        ] as [(String, [String], String, String)])
    func theClientIsTheAddressNoOneCanChooseFreely(
        peer: String, forwardedFor: [String], trusted: String, expected: String
    ) throws {
        let resolver = ClientAddressResolver(
            trustedProxies: trusted.split(separator: ",").compactMap { IPNetwork($0) })
        let client = resolver.client(peer: try SocketAddress(ipAddress: peer, port: 443), forwardedFor: forwardedFor)
        #expect(client == ClientKey(try #require(IPAddress(expected))))
    }

    @Test func differentIPv6NetworksAreDifferentClients() throws {
        let one = ClientKey(try #require(IPAddress("2001:db8:1:2::1")))
        #expect(one != ClientKey(try #require(IPAddress("2001:db8:1:3::1"))))
        #expect(one != ClientKey(try #require(IPAddress("192.0.2.1"))))
        #expect(IPNetwork("10.0.0.0/8")?.contains(try #require(IPAddress("10.255.0.1"))) == true)
        #expect(IPNetwork("10.0.0.0/8")?.contains(try #require(IPAddress("11.0.0.1"))) == false)
        #expect(IPNetwork("2001:db8::/33")?.contains(try #require(IPAddress("2001:db8:7fff::1"))) == true)
        #expect(IPNetwork("2001:db8::/33")?.contains(try #require(IPAddress("2001:db8:8000::1"))) == false)
    }
}
