import Foundation
import Testing

/// `shopkeeper stores local-testing on|off` against a running stack: it switches the Apple credentials' development
/// setting `accept_local_testing` and keeps every other field and the secrets; an app in production mode refuses it.
@Suite("shopkeeper stores")
struct StoresCommandEndToEndTests {
    @Test("local-testing on and off keep the other credentials; production mode refuses it")
    func localTestingSwitch() async throws {
        try await CatalogSyncWorld.run { world in
            let saved = try await world.gateway(
                .PUT, "/v1/admin/stores/apple",
                [
                    "bundle_id": world.bundleID, "environments": ["sandbox"], "shared_secret": "0123456789abcdef",
                    "variant_bundle_ids": ["full": world.bundleID + ".full"],
                ])
            #expect(saved.status == 200, "\(saved.json)")
            let environment = [
                "SHOPKEEPER_GATEWAY_URL": world.stack.gateway.baseURL, "SHOPKEEPER_SECRET_KEY": world.secretKey,
            ]

            let on = try runCLI(["stores", "local-testing", "on"], environment: environment)
            #expect(on.status == 0, "\(on.output)")
            let shown = try await world.gateway(.GET, "/v1/admin/stores")
            let apple = try #require(shown["apple"] as? [String: Any], "\(shown.json)")
            #expect(apple["accept_local_testing"] as? Bool == true)
            #expect(apple["shared_secret_set"] as? Bool == true)
            #expect(apple["environments"] as? [String] == ["sandbox"])
            #expect((apple["variant_bundle_ids"] as? [String: String])?["full"] == world.bundleID + ".full")

            let off = try runCLI(["stores", "local-testing", "off"], environment: environment)
            #expect(off.status == 0, "\(off.output)")
            let after = try await world.gateway(.GET, "/v1/admin/stores")
            #expect((after["apple"] as? [String: Any])?["accept_local_testing"] as? Bool == false)

            try await world.configureApple(connectKey: nil)
            let refused = try runCLI(["stores", "local-testing", "on"], environment: environment)
            #expect(refused.status != 0)
            #expect(refused.output.contains("accept_local_testing"), "\(refused.output)")
        }
    }
}
