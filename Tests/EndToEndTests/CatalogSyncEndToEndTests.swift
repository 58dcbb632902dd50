import Crypto
import Foundation
import ShopkeeperTestSupport
import Testing

/// The catalog sync with App Store Connect, end to end: the sandbox store plays App Store Connect (its JSON:API
/// documents, its ES256 JWT rule, review states and prices changed through its controls), the verifier reads it
/// with the app's sealed key, the catalog applies what the operator accepts, all through the gateway.
@Suite(.serialized) struct CatalogSyncEndToEndTests {
    static func product(
        _ id: String, _ type: String, state: String = "APPROVED", prices: [(String, String, Int64)],
        period: String? = nil, group: String? = nil
    ) -> [String: Any] {
        var product: [String: Any] = [
            "product_id": id, "type": type, "display_name": id, "review_state": state,
            "prices": prices.map { ["storefront": $0.0, "currency": $0.1, "price": $0.2] },
        ]
        if let period { product["subscription_period"] = period }
        if let group { product["subscription_group"] = group }
        return product
    }

    static func catalogProduct(_ id: String, storeID: String) -> [String: Any] {
        [
            "product_id": id, "type": "non_consumable", "store_product_ids": ["app_store": storeID],
            "review_state": "approved", "cleared_for_sale": true, "default_locale": "en",
            "localizations": ["en": ["name": id]], "entitlements": [id],
        ]
    }

    @Test func aSyncShowsTheDiffAndAppliesOnlyWhatIsAccepted() async throws {
        try await CatalogSyncWorld.run { world in
            let garden = "\(world.bundleID).garden"
            let seeds = "\(world.bundleID).seeds"
            let pro = "\(world.bundleID).pro"
            let old = "\(world.bundleID).old"
            let gone = "\(world.bundleID).gone"
            try await world.storeSells([
                Self.product(garden, "Non-Consumable", prices: [("USA", "USD", 990), ("DEU", "EUR", 1090)]),
                Self.product(seeds, "Consumable", state: "WAITING_FOR_REVIEW", prices: [("USA", "USD", 1990)]),
                Self.product(
                    pro, "Auto-Renewable Subscription", prices: [("USA", "USD", 4990)], period: "P1M", group: "Pro"),
                Self.product(old, "Non-Consumable", prices: [("USA", "USD", 990)]),
                Self.product(gone, "Non-Consumable", prices: [("USA", "USD", 990)]),
            ])
            let imported = try await world.gateway(
                .PUT, "/v1/admin/catalog",
                [
                    "products": [
                        Self.catalogProduct("garden", storeID: garden), Self.catalogProduct("old", storeID: old),
                        Self.catalogProduct("gone", storeID: gone),
                    ]
                ])
            #expect(imported.status == 200, "\(imported.json)")
            try await world.configureApple(connectKey: try await world.issueConnectKey())
            try await world.buy(old, user: "alice")

            // A dry run shows every difference and changes nothing.
            let dry = try await world.sync(dryRun: true, accept: ["new_product", "price"])
            #expect(dry.status == 200, "\(dry.json)")
            var changes = CatalogSyncWorld.changes(dry)
            #expect(changes["new_product:\(seeds)"]?["outcome"] as? String == "proposed", "\(dry.json)")
            #expect(changes["new_product:\(pro)"] != nil, "\(dry.json)")
            #expect(changes["price:garden:USA"]?["to"] as? String == "0.99 USD", "\(dry.json)")
            #expect(changes["price:garden:DEU"]?["to"] as? String == "1.09 EUR", "\(dry.json)")
            #expect(dry["applied"] as? Int == 0)
            #expect(try await world.gateway(.GET, "/v1/admin/products/\(seeds)").status == 404)

            // Applying new products and prices: the new products come with the store's review state.
            let applied = try await world.sync(dryRun: false, accept: ["new_product", "price"])
            changes = CatalogSyncWorld.changes(applied)
            #expect(changes["new_product:\(seeds)"]?["outcome"] as? String == "applied", "\(applied.json)")
            #expect(changes["price:garden:DEU"]?["outcome"] as? String == "applied", "\(applied.json)")
            let created = try await world.gateway(.GET, "/v1/admin/products/\(pro)")
            #expect(created["type"] as? String == "auto_renewable", "\(created.json)")
            #expect(created["duration"] as? String == "P1M", "\(created.json)")
            #expect(created["group"] as? String == "Pro", "\(created.json)")
            try await eventually("a development build sees the product in review, a distribution build does not") {
                let development = try await world.visibleProducts(build: "development")
                let distribution = try await world.visibleProducts(build: "distribution")
                return development.contains(seeds) && !distribution.contains(seeds) && distribution.contains(pro)
            }

            // At the store: the product is approved, a price changes, two products are deleted.
            try await world.storeSells([
                Self.product(garden, "Non-Consumable", prices: [("USA", "USD", 990), ("DEU", "EUR", 1190)]),
                Self.product(seeds, "Consumable", prices: [("USA", "USD", 1990)]),
                Self.product(
                    pro, "Auto-Renewable Subscription", prices: [("USA", "USD", 4990)], period: "P1M", group: "Pro"),
            ])
            let second = try await world.sync(dryRun: true)
            changes = CatalogSyncWorld.changes(second)
            #expect(changes["review_state:\(seeds)"]?["from"] as? String == "waiting_for_review", "\(second.json)")
            #expect(changes["review_state:\(seeds)"]?["to"] as? String == "approved", "\(second.json)")
            #expect(changes["price:garden:DEU"]?["from"] as? String == "1.09 EUR", "\(second.json)")
            #expect(changes["price:garden:DEU"]?["to"] as? String == "1.19 EUR", "\(second.json)")
            // The USA price was kept by the first apply: no difference there now.
            #expect(changes["price:garden:USA"] == nil, "\(second.json)")
            #expect(changes["deleted_at_store:old"] != nil, "\(second.json)")
            #expect(changes["deleted_at_store:gone"] != nil, "\(second.json)")

            // The CLI shows the same differences.
            #expect(try world.cliDryRunChangeIDs(store: "apple") == Set(changes.keys))

            // Only what is accepted is applied: the price change is left for later.
            let third = try await world.sync(
                dryRun: false, accept: ["review_state:\(seeds)", "deleted_at_store"])
            changes = CatalogSyncWorld.changes(third)
            #expect(changes["review_state:\(seeds)"]?["outcome"] as? String == "applied", "\(third.json)")
            #expect(changes["price:garden:DEU"]?["outcome"] as? String == "proposed", "\(third.json)")
            #expect(changes["deleted_at_store:old"]?["outcome"] as? String == "kept", "\(third.json)")
            #expect(changes["deleted_at_store:gone"]?["outcome"] as? String == "applied", "\(third.json)")
            try await eventually("a distribution build sees the approved product") {
                try await world.visibleProducts(build: "distribution").contains(seeds)
            }
            // A product with purchases is never deleted: it is hidden; the other one is gone.
            let kept = try await world.gateway(.GET, "/v1/admin/products/old")
            #expect(kept.status == 200, "\(kept.json)")
            #expect(kept["review_state"] as? String == "removed", "\(kept.json)")
            #expect(try await world.gateway(.GET, "/v1/admin/products/gone").status == 404)
            let customer = try await world.gateway(.GET, "/v1/customers/alice")
            #expect(
                (customer["entitlements"] as? [String: [String: Any]])?["old"]?["active"] as? Bool == true,
                "\(customer.json)")

            // Applied once: the same request again applies nothing more; the price change still waits.
            let again = try await world.sync(dryRun: false, accept: ["review_state:\(seeds)", "deleted_at_store"])
            changes = CatalogSyncWorld.changes(again)
            #expect(again["applied"] as? Int == 0, "\(again.json)")
            #expect(Set(changes.keys) == ["price:garden:DEU"], "\(again.json)")
        }
    }

    @Test func aBadOrMissingKeyIsAClearProblem() async throws {
        try await CatalogSyncWorld.run { world in
            try await world.configureApple(connectKey: nil)
            let missing = try await world.sync(dryRun: true)
            #expect(missing.status == 422, "\(missing.json)")
            #expect(missing.code == "connect_api_key_missing", "\(missing.json)")

            // A key App Store Connect does not know (the id of a real key, another private key): refused, not a 500.
            var key = try await world.issueConnectKey()
            key["private_key"] = P256.Signing.PrivateKey().pemRepresentation
            try await world.configureApple(connectKey: key)
            let refused = try await world.sync(dryRun: true)
            #expect(refused.status == 422, "\(refused.json)")
            #expect(refused.code == "store_credentials_rejected", "\(refused.json)")

            let unknown = try await world.gateway(
                .POST, "/v1/admin/catalog/sync", ["store": "amazon", "dry_run": true])
            #expect(unknown.status == 422, "\(unknown.json)")
            let publicKey = try await world.gateway(
                .POST, "/v1/admin/catalog/sync", ["store": "apple", "dry_run": true], secret: false)
            #expect(publicKey.status == 403, "\(publicKey.json)")
        }
    }
}
