import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

@Suite("App settings")
struct SettingsTests {
    static let path = "/v1/admin/entitlements/settings"

    @Test("An app without settings gets the defaults; a PUT changes only the fields it sends")
    func defaultsAndMerge() async throws {
        try await EntitlementsHarness.run { harness in
            let initial = try await harness.send(.get, Self.path)
            #expect(initial.status == .ok)
            #expect(try initial.violations(.get, Self.path) == [])
            #expect(try harness.json(initial) == Self.document("transfer", 25, true, nil))

            let limit = try await harness.putSettings(#"{"device_limit": 5}"#)
            #expect(limit.status == .ok)
            #expect(try limit.violations(.put, Self.path) == [])
            #expect(try harness.json(limit) == Self.document("transfer", 5, true, nil))

            let policy = try await harness.putSettings(
                #"{"transfer_policy": "keep_with_original", "accept_sandbox": false, "device_limit": null}"#)
            #expect(try harness.json(policy) == Self.document("keep_with_original", 5, false, nil))
            let read = try await harness.send(.get, Self.path)
            #expect(try harness.json(read) == Self.document("keep_with_original", 5, false, nil))
            #expect(try await harness.putSettings("{}").status == .ok)
            let unchanged = try harness.json(try await harness.send(.get, Self.path))
            #expect(unchanged == (try harness.json(read)))
        }
    }

    @Test("Saved settings rule the next purchase: sandbox refused, device limit")
    func settingsTakeEffect() async throws {
        try await EntitlementsHarness.run { harness in
            #expect(try await harness.putSettings(#"{"accept_sandbox": false, "device_limit": 1}"#).status == .ok)
            let sandbox = try await harness.apply([EntitlementsFixtures.transaction(product: "garden")])
            #expect(sandbox.status == .forbidden)
            #expect(sandbox.problemCode == "sandbox_not_accepted")
            let purchase = EntitlementsFixtures.transaction(product: "garden", environment: .production)
            #expect(try await harness.apply([purchase], device: "phone").status == .ok)
            let second = try await harness.apply([purchase], device: "tablet")
            #expect(second.status == .forbidden)
            #expect(second.problemCode == "device_limit_reached")
        }
    }

    @Test(
        "Invalid settings are refused with every problem located",
        arguments: [
            (#"{"transfer_policy": "steal"}"#, ["/transfer_policy"]),
            (#"{"device_limit": 0}"#, ["/device_limit"]),
            (#"{"device_limit": 10001}"#, ["/device_limit"]),
            (#"{"device_limit": "5"}"#, ["/device_limit"]),
            (#"{"accept_sandbox": "yes"}"#, ["/accept_sandbox"]),
            (#"{"webhook_url": "ftp://hooks.example.invalid/x"}"#, ["/webhook_url"]),
            (#"{"webhook_url": "/hooks"}"#, ["/webhook_url"]),
            (#"{"webhook_url": "not a url"}"#, ["/webhook_url"]),
            (#"{"webhook_url": "https://"}"#, ["/webhook_url"]),
            (#"{"webhook_url": 42}"#, ["/webhook_url"]),
            (#"{"colour": "green"}"#, ["/colour"]),
            (
                #"{"transfer_policy": "x", "device_limit": -1, "webhook_url": "mailto:a@b.c"}"#,
                ["/transfer_policy", "/device_limit", "/webhook_url"]
            ),
        ])
    func invalidSettings(body: String, pointers: [String]) async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let response = try await harness.putSettings(body)
            #expect(response.status == .unprocessableContent)
            #expect(try response.violations(.put, Self.path) == [])
            #expect(response.problemCode == "validation_failed")
            let errors = try TestJSON.object(response.body.readableBytesView)["errors"] as? [[String: Any]] ?? []
            #expect(errors.compactMap { $0["pointer"] as? String } == pointers)
            // Nothing was saved.
            let read = try await harness.send(.get, Self.path)
            #expect(try harness.json(read) == Self.document("transfer", 25, true, nil))
        }
    }

    @Test("A URL longer than 2048 characters is refused")
    func longURL() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let url = "https://hooks.example.invalid/" + String(repeating: "a", count: 2048)
            let response = try await harness.putSettings(#"{"webhook_url": "\#(url)"}"#)
            #expect(response.status == .unprocessableContent)
        }
    }

    @Test("Where private hosts are not allowed, webhook URLs naming them are refused")
    func privateHostsRefused() async throws {
        let refused = [
            "http://127.0.0.1:8080/hook", "http://localhost/hook", "https://LOCALHOST./x", "http://api.localhost/x",
            "http://[::1]/x", "http://10.1.2.3/x", "http://172.16.0.1/x", "http://192.168.1.10/x",
            "http://169.254.169.254/latest/meta-data", "http://0.0.0.0/x", "http://2130706433/x", "http://0x7f.1/x",
            "http://[::ffff:127.0.0.1]/x", "http://[fd00::1]/x", "http://[fe80::1]/x", "http://100.64.0.1/x",
        ]
        try await EntitlementsHarness.run(
            environment: ["SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "false"], products: []
        ) { harness in
            for url in refused {
                let response = try await harness.putSettings(#"{"webhook_url": "\#(url)"}"#)
                #expect(response.status == .unprocessableContent, "\(url)")
                #expect(try response.violations(.put, Self.path) == [])
            }
            // Public names and addresses are fine (nothing is sent: this app has no events).
            for url in [
                "https://hooks.example.invalid/shopkeeper", "http://203.0.113.7:8443/x", "https://[2001:db8::1]/x",
            ] {
                #expect(try await harness.putSettings(#"{"webhook_url": "\#(url)"}"#).status == .ok, "\(url)")
            }
        }
    }

    @Test("The webhook secret is shown once when the first URL is set, and again only when rotated")
    func secretShownOnce() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let rotateEarly = try await harness.send(.post, "/v1/admin/entitlements/webhook-secret")
            #expect(rotateEarly.status == .conflict)
            #expect(rotateEarly.problemCode == "webhook_not_configured")
            #expect(try rotateEarly.violations(.post, "/v1/admin/entitlements/webhook-secret") == [])

            let first = try await harness.putSettings(#"{"webhook_url": "https://hooks.example.invalid/a"}"#)
            let secret = try #require(try harness.json(first)["webhook_secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && secret.count == 38)
            #expect(first.headers[.cacheControl] == "no-store")
            let read = try await harness.send(.get, Self.path)
            #expect(try harness.json(read)["webhook_secret"] == nil)
            #expect(try harness.json(read)["webhook_url"] as? String == "https://hooks.example.invalid/a")
            for body in [#"{"webhook_url": "https://hooks.example.invalid/b"}"#, #"{"webhook_url": null}"#] {
                let again = try await harness.putSettings(body)
                #expect(again.status == .ok)
                #expect(try harness.json(again)["webhook_secret"] == nil)
            }
            #expect(try harness.json(try await harness.send(.get, Self.path))["webhook_url"] is NSNull)
            let restored = try await harness.putSettings(#"{"webhook_url": "https://hooks.example.invalid/c"}"#)
            #expect(try harness.json(restored)["webhook_secret"] == nil)

            let rotated = try await harness.send(.post, "/v1/admin/entitlements/webhook-secret")
            #expect(rotated.status == .ok)
            #expect(try rotated.violations(.post, "/v1/admin/entitlements/webhook-secret") == [])
            let next = try #require(try harness.json(rotated)["webhook_secret"] as? String)
            #expect(next.hasPrefix("whsec_") && next != secret)
        }
    }

    @Test("Concurrent first saves of a webhook URL create exactly one secret")
    func concurrentFirstSave() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let secrets = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let response = try await harness.putSettings(
                            #"{"webhook_url": "https://hooks.example.invalid/\#(index)"}"#, atOnce: true)
                        return try harness.json(response)["webhook_secret"] as? String
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(secrets.compactMap { $0 }.count == 1)
        }
    }

    @Test("Settings need a secret key")
    func publicKeyRefused() async throws {
        try await EntitlementsHarness.run(products: []) { harness in
            let requests: [(HTTPRequest.Method, String, Data?)] = [
                (.get, Self.path, nil), (.put, Self.path, Data("{}".utf8)),
                (.post, "/v1/admin/entitlements/webhook-secret", nil),
            ]
            for (method, path, body) in requests {
                let response = try await harness.send(method, path, kind: .public, json: body)
                #expect(response.status == .forbidden)
                #expect(response.problemCode == "secret_key_required")
                #expect(try response.violations(method, path) == [])
            }
        }
    }

    @Test(
        "Which hosts are not public",
        arguments: [
            ("localhost", true), ("Foo.LocalHost.", true), ("127.0.0.1", true), ("127.1", true), ("0x7f000001", true),
            ("10.0.0.1", true), ("172.31.255.255", true), ("172.32.0.1", false), ("192.168.0.1", true),
            ("169.254.1.1", true), ("100.64.0.1", true), ("100.128.0.1", false), ("224.0.0.1", true),
            ("255.255.255.255", true), ("8.8.8.8", false), ("[::1]", true), ("::", true), ("fc00::1", true),
            ("fe80::1%25eth0", true), ("ff02::1", true), ("::ffff:10.0.0.1", true), ("::ffff:8.8.8.8", false),
            ("64:ff9b::7f00:1", true), ("2001:db8::1", false), ("example.com", false), ("localhost.example", false),
        ])
    func nonPublicHosts(host: String, nonPublic: Bool) {
        #expect(WebhookURLPolicy.isNonPublic(host: host) == nonPublic)
    }

    static func document(_ policy: String, _ limit: Int, _ sandbox: Bool, _ url: String?) -> NSDictionary {
        [
            "transfer_policy": policy, "device_limit": limit, "accept_sandbox": sandbox,
            "webhook_url": url.map { $0 as Any } ?? NSNull(),
        ]
    }
}

extension EntitlementsHarness {
    /// `PUT /v1/admin/entitlements/settings` with `json`.
    func putSettings(_ json: String, atOnce: Bool = false) async throws -> any HTTPAnswer {
        try await send(.put, SettingsTests.path, json: Data(json.utf8), atOnce: atOnce)
    }

    /// A response's JSON object.
    func json(_ response: any HTTPAnswer) throws -> NSDictionary {
        try TestJSON.object(response.body.readableBytesView) as NSDictionary
    }
}
