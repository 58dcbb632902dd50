import Foundation
import ShopkeeperTestSupport
import Testing

/// The catalog sync with Google Play, end to end: the sandbox store plays the Android Publisher API's monetization
/// endpoints (one-time products, subscriptions with base plans and offers, states and regional prices changed
/// through its controls, Google's bearer rule), the verifier reads it with the app's service account, the catalog
/// applies what the operator accepts, all through the gateway.
@Suite(.serialized) struct CatalogSyncGoogleEndToEndTests {
    static func catalogProduct(_ id: String) -> [String: Any] {
        [
            "product_id": id, "type": "non_consumable", "store_product_ids": ["play_store": id],
            "review_state": "approved", "cleared_for_sale": true, "default_locale": "en",
            "localizations": ["en": ["name": id]], "entitlements": [id],
        ]
    }

    @Test func aPlaySyncShowsTheDiffAndAppliesOnlyWhatIsAccepted() async throws {
        try await CatalogSyncWorld.run { world in
            typealias World = CatalogSyncWorld
            let kept = [
                World.playProduct("garden", prices: [("US", "USD", "2.99"), ("DE", "EUR", "2.99")]),
                World.playProduct("coins", multiQuantity: true, prices: [("US", "USD", "0.99")]),
                World.playProduct("beta", state: "DRAFT", prices: [("US", "USD", "1.99")]),
                World.playSubscription(
                    "pro", basePlan: "monthly", period: "P1M", prices: [("US", "USD", "4.99"), ("DE", "EUR", "5.49")],
                    offers: ["trial"]),
            ]
            try await world.playSells(
                kept + [
                    World.playProduct("old", prices: [("US", "USD", "0.99")]),
                    World.playProduct("gone", prices: [("US", "USD", "0.99")]),
                ])
            let imported = try await world.gateway(
                .PUT, "/v1/admin/catalog",
                ["products": [Self.catalogProduct("garden"), Self.catalogProduct("old"), Self.catalogProduct("gone")]])
            #expect(imported.status == 200, "\(imported.json)")
            try await world.configureGoogle()
            try await world.buyOnPlay("old", user: "alice")

            // A dry run shows every difference and changes nothing.
            let dry = try await world.sync(dryRun: true, accept: ["new_product", "price"], store: "google")
            #expect(dry.status == 200, "\(dry.json)")
            #expect(dry["store"] as? String == "google", "\(dry.json)")
            var changes = CatalogSyncWorld.changes(dry)
            #expect(changes["new_product:coins"]?["outcome"] as? String == "proposed", "\(dry.json)")
            #expect(
                changes["new_product:pro"]?["to"] as? String
                    == "auto_renewable, ACTIVE, base plan monthly, 2 territories",
                "\(dry.json)")
            #expect(changes["price:garden:US"]?["to"] as? String == "2.99 USD", "\(dry.json)")
            #expect(changes["price:garden:DE"]?["to"] as? String == "2.99 EUR", "\(dry.json)")
            #expect(dry["applied"] as? Int == 0)
            #expect(try await world.gateway(.GET, "/v1/admin/products/coins").status == 404)

            // Applying new products and prices: they come with Play's state as their review state.
            let applied = try await world.sync(dryRun: false, accept: ["new_product", "price"], store: "google")
            changes = CatalogSyncWorld.changes(applied)
            #expect(changes["new_product:coins"]?["outcome"] as? String == "applied", "\(applied.json)")
            #expect(changes["price:garden:US"]?["outcome"] as? String == "applied", "\(applied.json)")
            let pro = try await world.gateway(.GET, "/v1/admin/products/pro")
            #expect(pro["type"] as? String == "auto_renewable", "\(pro.json)")
            #expect(pro["duration"] as? String == "P1M", "\(pro.json)")
            #expect((pro["store_product_ids"] as? [String: String])?["play_store"] == "pro", "\(pro.json)")
            let coins = try await world.gateway(.GET, "/v1/admin/products/coins")
            #expect(coins["type"] as? String == "consumable", "\(coins.json)")
            try await eventually("a development build sees the draft, a distribution build the active products") {
                let development = try await world.visibleProducts(build: "development", platform: "play_store")
                let distribution = try await world.visibleProducts(build: "distribution", platform: "play_store")
                return development.contains("beta") && !distribution.contains("beta")
                    && distribution.isSuperset(of: ["coins", "pro", "garden"])
            }

            // At the store: coins are made inactive, garden's US price changes, two products are deleted.
            try await world.playSells(kept)
            try await world.playChanges("coins", ["state": "INACTIVE"])
            try await world.playChanges(
                "garden",
                [
                    "prices": [
                        ["region": "US", "currency": "USD", "price": "3.49"],
                        ["region": "DE", "currency": "EUR", "price": "2.99"],
                    ]
                ])
            let second = try await world.sync(dryRun: true, store: "google")
            changes = CatalogSyncWorld.changes(second)
            #expect(changes["review_state:coins"]?["from"] as? String == "approved", "\(second.json)")
            #expect(changes["review_state:coins"]?["to"] as? String == "removed", "\(second.json)")
            #expect(changes["review_state:coins"]?["detail"] as? String == "Google Play: INACTIVE", "\(second.json)")
            #expect(changes["price:garden:US"]?["from"] as? String == "2.99 USD", "\(second.json)")
            #expect(changes["price:garden:US"]?["to"] as? String == "3.49 USD", "\(second.json)")
            #expect(changes["price:garden:DE"] == nil, "\(second.json)")
            #expect(changes["deleted_at_store:old"]?["detail"] as? String == "has purchases: never deleted")
            #expect(changes["deleted_at_store:gone"] != nil, "\(second.json)")

            // The CLI shows the same differences.
            #expect(try world.cliDryRunChangeIDs(store: "google") == Set(changes.keys))

            // Only what is accepted is applied.
            let third = try await world.sync(
                dryRun: false, accept: ["review_state", "deleted_at_store", "price:garden:US"], store: "google")
            changes = CatalogSyncWorld.changes(third)
            #expect(changes["review_state:coins"]?["outcome"] as? String == "applied", "\(third.json)")
            #expect(changes["price:garden:US"]?["outcome"] as? String == "applied", "\(third.json)")
            #expect(changes["deleted_at_store:old"]?["outcome"] as? String == "kept", "\(third.json)")
            #expect(changes["deleted_at_store:gone"]?["outcome"] as? String == "applied", "\(third.json)")
            try await eventually("the inactive product is hidden from every build") {
                let development = try await world.visibleProducts(build: "development", platform: "play_store")
                let distribution = try await world.visibleProducts(build: "distribution", platform: "play_store")
                return !development.contains("coins") && !distribution.contains("coins") && distribution.contains("pro")
            }
            // A product with purchases is never deleted: it is hidden; the other one is gone.
            let old = try await world.gateway(.GET, "/v1/admin/products/old")
            #expect(old.status == 200, "\(old.json)")
            #expect(old["review_state"] as? String == "removed", "\(old.json)")
            #expect(try await world.gateway(.GET, "/v1/admin/products/gone").status == 404)
            let customer = try await world.gateway(.GET, "/v1/customers/alice")
            #expect(
                (customer["entitlements"] as? [String: [String: Any]])?["old"]?["active"] as? Bool == true,
                "\(customer.json)")

            // Applied once: the same request again applies nothing more.
            let again = try await world.sync(
                dryRun: false, accept: ["review_state", "deleted_at_store", "price:garden:US"], store: "google")
            #expect(again["applied"] as? Int == 0, "\(again.json)")
            #expect(CatalogSyncWorld.changes(again).isEmpty, "\(again.json)")
        }
    }

    @Test func badInputAndRefusedCredentialsAreProblems() async throws {
        try await CatalogSyncWorld.run { world in
            let missing = try await world.sync(dryRun: true, store: "google")
            #expect(missing.status == 422, "\(missing.json)")
            #expect(missing.code == "store_not_configured", "\(missing.json)")

            // A service account Google made for another app: refused by the store, a 422, not a 500.
            try await world.configureGoogle(accountPackage: "com.example.someoneelse")
            let refused = try await world.sync(dryRun: true, store: "google")
            #expect(refused.status == 422, "\(refused.json)")
            #expect(refused.code == "store_credentials_rejected", "\(refused.json)")

            for body: [String: Any] in [
                ["store": "amazon", "dry_run": true], ["store": "google", "dry_run": "yes"],
                ["store": "google", "accept": "price"], ["dry_run": true], ["store": "google", "extra": 1],
            ] {
                let bad = try await world.gateway(.POST, "/v1/admin/catalog/sync", body)
                #expect((400..<500).contains(bad.status), "\(body): \(bad.json)")
                #expect(bad.headers.first(name: "content-type") == "application/problem+json")
            }
        }
    }
}
