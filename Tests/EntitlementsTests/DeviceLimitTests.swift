import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("The device limit of a purchase, and clearing its devices")
struct DeviceLimitTests {
    static let template = "/v1/admin/purchases/{store}/{original_transaction_id}/devices"

    @Test("25 devices by default; the 26th is refused with nothing granted until the devices are cleared")
    func defaultLimit() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            for device in 1...25 {
                let response = try await harness.apply([garden], user: "owner", device: "device-\(device)")
                #expect(response.status == .ok, "device \(device)")
            }
            let refused = try await harness.apply([garden], user: "owner", device: "device-26")
            #expect(refused.status == .forbidden)
            #expect(refused.problemCode == "device_limit_reached")
            let intruder = try await harness.apply([garden], user: "intruder", device: "device-26")
            #expect(intruder.problemCode == "device_limit_reached")
            #expect(try await harness.info("intruder").nonSubscriptionPurchases.isEmpty)
            #expect(try await harness.info("owner").entitlements["extra_garden"]?.active == true)
            // A device that presented it before still may.
            #expect(try await harness.apply([garden], user: "owner", device: "device-7").status == .ok)

            let publicKey = try await harness.clearDevices(garden.originalTransactionID, kind: .public)
            #expect(publicKey.status == .forbidden)
            #expect(publicKey.problemCode == "secret_key_required")
            #expect(try publicKey.violations(.delete, Self.template) == [])

            let cleared = try await harness.clearDevices(garden.originalTransactionID)
            #expect(cleared.status == .ok)
            #expect(try cleared.json["cleared"] as? Int == 25)
            #expect(try cleared.violations(.delete, Self.template) == [])
            #expect(try await harness.apply([garden], user: "owner", device: "device-26").status == .ok)
            #expect(try await harness.clearDevices(garden.originalTransactionID).json["cleared"] as? Int == 1)
        }
    }

    @Test("A lower limit from the app's settings")
    func lowerLimit() async throws {
        try await EntitlementsHarness.run { harness in
            try await setPolicy("transfer", deviceLimit: 2, appID: harness.appID)
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            #expect(try await harness.apply([seeds], user: "owner", device: "tablet").status == .ok)
            #expect(try await harness.apply([seeds], user: "owner", device: "phone").status == .ok)
            let third = try await harness.apply([seeds], user: "owner", device: "watch")
            #expect(third.status == .forbidden)
            #expect(third.problemCode == "device_limit_reached")
            #expect(try await harness.info("owner").consumableBalances == ["seeds": 5])
            #expect(try await harness.clearDevices(seeds.originalTransactionID).status == .ok)
            #expect(try await harness.apply([seeds], user: "owner", device: "watch").status == .ok)
            #expect(try await harness.info("owner").consumableBalances == ["seeds": 5])
        }
    }

    @Test("Clearing the devices of a purchase the app does not have is 404 purchase_not_found")
    func unknownPurchase() async throws {
        try await EntitlementsHarness.run { harness in
            let unknown = try await harness.clearDevices("1000000000000001")
            #expect(unknown.status == .notFound)
            #expect(unknown.problemCode == "purchase_not_found")
            #expect(try unknown.violations(.delete, Self.template) == [])
            let garden = EntitlementsFixtures.transaction(product: "garden")
            _ = try await harness.applied([garden])
            #expect(
                try await harness.clearDevices(garden.originalTransactionID, store: "play_store").status == .notFound)
            #expect(try await harness.clearDevices(garden.originalTransactionID, store: "steam").status == .notFound)

            // Another app's purchase is not this app's to clear.
            let other = EntitlementsHarness(
                replicas: harness.replicas, catalog: harness.catalog, subscriptions: harness.subscriptions,
                appID: TestEnvironment.uniqueAppID(), database: harness.database)
            #expect(try await other.clearDevices(garden.originalTransactionID).problemCode == "purchase_not_found")
        }
    }
}
