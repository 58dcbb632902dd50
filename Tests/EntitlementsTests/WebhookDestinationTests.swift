import Foundation
import HTTPTypes
import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// A resolver with fixed answers, so tests can give a name any address without DNS (an unknown name fails like
/// a name that does not resolve).
struct StaticResolver: WebhookResolver {
    var names: [String: [IPAddress]]

    func addresses(of host: String) async throws(WebhookFailure) -> [IPAddress] {
        guard let addresses = names[host.lowercased()], !addresses.isEmpty else { throw .dns }
        return addresses
    }
}

@Suite("Webhook destinations (issue 22: webhooks can reach inside)")
struct WebhookDestinationTests {
    static let production = WebhookURLPolicy(allowPrivateHosts: false)
    static let loopback = IPAddress.v4(0x7F00_0001)

    @Test(
        "The system resolver reads every odd literal form as the address it is, which is refused",
        arguments: [
            ("0x7f000001", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("127.1", "127.0.0.1"),
            ("017700000001", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("169.254.169.254", "169.254.169.254"),
            ("0", "0.0.0.0"), ("::1", "::1"), ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
        ])
    func oddLiterals(host: String, address: String) async throws {
        let found = try await SystemWebhookResolver().addresses(of: host)
        #expect(found.map(\.description) == [address])
        #expect(found.allSatisfy { $0.isNonPublic })
    }

    @Test(
        "Loopback, private, link-local, metadata, multicast, unspecified and IPv4-in-IPv6 addresses are not public",
        arguments: [
            "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.10",
            "169.254.169.254", "100.64.0.1", "100.100.100.200", "0.0.0.0", "224.0.0.1", "239.255.255.250",
            "255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.0.170", "::", "::1", "::ffff:127.0.0.1",
            "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0:127.0.0.1", "::127.0.0.1", "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::", "2002:a9fe:a9fe::1", "fd00:ec2::254", "fc00::1", "fe80::1", "fec0::1", "ff02::1",
            "100::1",
        ])
    func nonPublic(address: String) throws {
        let parsed = try #require(IPAddress(literal: address))
        #expect(parsed.isNonPublic)
    }

    @Test(
        "Public addresses are public",
        arguments: ["93.184.216.34", "203.0.113.7", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
    func isPublic(address: String) throws {
        #expect(try #require(IPAddress(literal: address)).isNonPublic == false)
    }

    @Test("A name is refused when any address it resolves to is not public, and pinned to a checked one otherwise")
    func namesAreResolvedAndChecked() async throws {
        let resolver = StaticResolver(names: [
            "hooks.tenant.test": [Self.loopback],
            "hooks.mixed.test": [IPAddress(literal: "203.0.113.7")!, IPAddress(literal: "10.0.0.1")!],
            "hooks.metadata.test": [IPAddress(literal: "fd00:ec2::254")!],
            "hooks.public.test": [IPAddress(literal: "203.0.113.7")!, IPAddress(literal: "2001:db8::7")!],
        ])
        for name in ["hooks.tenant.test", "hooks.mixed.test", "hooks.metadata.test"] {
            await #expect(throws: WebhookFailure.destinationRefused) {
                _ = try await WebhookDestination.resolve(
                    "https://\(name)/hooks", policy: Self.production, resolver: resolver)
            }
        }
        await #expect(throws: WebhookFailure.dns) {
            _ = try await WebhookDestination.resolve(
                "https://hooks.unknown.test/hooks", policy: Self.production, resolver: resolver)
        }
        let destination = try await WebhookDestination.resolve(
            "https://HOOKS.public.test:8443/hooks", policy: Self.production, resolver: resolver)
        #expect(destination.address.description == "203.0.113.7")
        #expect(destination.dnsOverride == [destination.host: "203.0.113.7"])
        // Where private destinations are allowed, a name still goes to the address that was resolved.
        let allowed = try await WebhookDestination.resolve(
            "http://hooks.tenant.test:9/x", policy: WebhookURLPolicy(allowPrivateHosts: true), resolver: resolver)
        #expect(allowed.dnsOverride == ["hooks.tenant.test": "127.0.0.1"])
    }

    @Test("Internal destinations are off unless SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS says so, never in production")
    func allowPrivateSetting() throws {
        #expect(try EntitlementsSettings.read(from: TestEnvironment.reader()).webhooks.allowPrivateHosts == false)
        let allowed = try EntitlementsSettings.read(
            from: TestEnvironment.reader(["SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "true"]))
        #expect(allowed.webhookURLPolicy.allowPrivateHosts)
        let production = [
            "SHOPKEEPER_ENV": "production", "SHOPKEEPER_MASTER_KEY": String(repeating: "m", count: 40),
            "SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "true",
        ]
        #expect(throws: ConfigurationError.self) {
            _ = try EntitlementsSettings.read(from: TestEnvironment.reader(production))
        }
        var withoutKey = production
        withoutKey["SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS"] = nil
        withoutKey["SHOPKEEPER_MASTER_KEY"] = nil
        #expect(throws: ConfigurationError.self) {
            _ = try EntitlementsSettings.read(from: TestEnvironment.reader(withoutKey))
        }
    }

    @Test("In development, internal webhook URLs are refused unless allowed")
    func internalURLsRefusedByDefault() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            for url in [
                "http://127.0.0.1:8080/hook", "http://[::1]/x", "http://0x7f000001/x", "http://2130706433/x",
                "http://127.1/x", "http://017700000001/x", "http://169.254.169.254/latest/meta-data",
            ] {
                let response = try await harness.putSettings(#"{"webhook_url": "\#(url)"}"#)
                #expect(response.status == .unprocessableContent, "\(url)")
            }
        }
    }

    @Test("A name that resolves to a loopback address is never called; the tenant reads only 'destination refused'")
    func nameResolvingInsideIsRefused() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            let resolver = StaticResolver(names: ["hooks.tenant.test": [Self.loopback]])
            try await WebhookTests.run(
                environment: ["SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "false"], resolver: resolver
            ) { harness in
                _ = try await harness.configureWebhook("http://hooks.tenant.test:\(receiver.port)/hooks/shopkeeper")
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                let delivery = try await harness.failedDelivery(id)
                #expect(delivery["last_error"] as? String == "destination refused")
                #expect(delivery["last_status"] is NSNull)
                #expect(await receiver.requests.isEmpty)
            }
        }
    }

    @Test("A name is connected to at the address it was checked at, and still sent as Host")
    func nameIsPinnedToTheCheckedAddress() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            // No DNS server knows `hooks.tenant.test`: the delivery arrives only if the client connects to the
            // address the dispatcher resolved and checked, rather than resolving the name again.
            let resolver = StaticResolver(names: ["hooks.tenant.test": [Self.loopback]])
            try await WebhookTests.run(resolver: resolver) { harness in
                _ = try await harness.configureWebhook("http://hooks.tenant.test:\(receiver.port)/hooks/shopkeeper")
                _ = try await harness.applied([EntitlementsFixtures.transaction(product: "garden")])
                let id = try #require(try await harness.eventIDs().first)
                try await eventually("delivered") { try await harness.deliveryState(id) == "delivered" }
                let request = try #require(await receiver.requests(for: id).first)
                #expect(request.authority == "hooks.tenant.test:\(receiver.port)")
            }
        }
    }
}

extension EntitlementsHarness {
    /// Waits for the event's first failed attempt and returns its delivery, checked against the API document.
    func failedDelivery(_ id: String) async throws -> [String: Any] {
        try await eventually("a failed attempt") {
            let event = try json(try await send(.get, "/v1/admin/events/\(id)"))
            return (event["delivery"] as? [String: Any])?["last_error"] is String
        }
        let response = try await send(.get, "/v1/admin/events/\(id)")
        #expect(try response.violations(.get, "/v1/admin/events/{event_id}") == [])
        let list = try await send(.get, "/v1/admin/events?limit=50")
        #expect(try list.violations(.get, "/v1/admin/events") == [])
        return try #require(try json(response)["delivery"] as? [String: Any])
    }
}
