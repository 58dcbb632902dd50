import Foundation
import ShopkeeperTestSupport
import Testing

/// Google Play sales priced from the catalog syncs' price history, end to end: the sandbox's Play catalog and
/// purchases, the verifier, the catalog's history, entitlements' sales report, all through the gateway.
@Suite struct CatalogSyncPriceHistoryEndToEndTests {
    /// The sales report's Play row for the US in `currency` (`nil`: the row without a price) around now (sandbox
    /// purchases: Play's license testing).
    static func playSalesInTheUS(_ world: CatalogSyncWorld, currency: String? = "USD") async throws -> [String: Any]? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let from = formatter.string(from: Date().addingTimeInterval(-86_400))
        let to = formatter.string(from: Date().addingTimeInterval(86_400))
        let answer = try await world.gateway(
            .GET, "/v1/admin/reports/sales?from=\(from)&to=\(to)&environment=sandbox&group_by=store,storefront")
        #expect(answer.status == 200, "\(answer.json)")
        return ((answer["rows"] as? [[String: Any]]) ?? []).first {
            $0["store"] as? String == "play_store" && $0["storefront"] as? String == "US"
                && $0["currency"] as? String == currency
        }
    }

    @Test func aPlaySaleIsPricedFromThePriceInForceInItsRegionWhenItWasBought() async throws {
        try await CatalogSyncWorld.run { world in
            try await world.playSells([
                CatalogSyncWorld.playProduct("garden", prices: [("US", "USD", "2.99"), ("DE", "EUR", "2.49")])
            ])
            let imported = try await world.gateway(
                .PUT, "/v1/admin/catalog", ["products": [CatalogSyncGoogleEndToEndTests.catalogProduct("garden")]])
            #expect(imported.status == 200, "\(imported.json)")
            try await world.configureGoogle()
            // Before any sync there is no price: the sale has none.
            try await world.buyOnPlay("garden", user: "early")
            var row = try await Self.playSalesInTheUS(world, currency: nil)
            #expect(row?["purchases"] as? Int == 1, "\(String(describing: row))")
            #expect(row?["revenue_milliunits"] is NSNull, "\(String(describing: row))")
            #expect(row?["estimated_revenue_milliunits"] is NSNull, "\(String(describing: row))")

            let synced = try await world.sync(dryRun: false, accept: ["price"], store: "google")
            #expect(synced.status == 200, "\(synced.json)")
            // The catalog serves the synced price as the hint of a build in that storefront (ShopkeeperKit shows it
            // when the store's products cannot be loaded).
            try await eventually("the synced price is the US storefront's price hint") {
                let catalog = try await world.gateway(
                    .GET, "/v1/catalog?platform=play_store&app_version=1.0&build=distribution&storefront=US",
                    secret: false)
                let garden = ((catalog["products"] as? [[String: Any]]) ?? []).first {
                    $0["product_id"] as? String == "garden"
                }
                return garden?["price_hint"] as? String == "2.99 USD"
            }
            try await world.buyOnPlay("garden", user: "alice")
            row = try await Self.playSalesInTheUS(world)
            #expect(row?["currency"] as? String == "USD", "\(String(describing: row))")
            #expect(row?["purchases"] as? Int == 1, "\(String(describing: row))")
            #expect(row?["revenue_milliunits"] as? Int == 2990, "\(String(describing: row))")
            #expect(row?["estimated_revenue_milliunits"] as? Int == 2990, "\(String(describing: row))")

            // The price changes at the store after the purchase; a sync (a dry run too) sees it. Alice's sale keeps
            // the price she paid.
            try await world.playChanges(
                "garden",
                [
                    "prices": [
                        ["region": "US", "currency": "USD", "price": "3.49"],
                        ["region": "DE", "currency": "EUR", "price": "2.49"],
                    ]
                ])
            let seen = try await world.sync(dryRun: true, store: "google")
            #expect(CatalogSyncWorld.changes(seen)["price:garden:US"]?["to"] as? String == "3.49 USD", "\(seen.json)")
            row = try await Self.playSalesInTheUS(world)
            #expect(row?["revenue_milliunits"] as? Int == 2990, "\(String(describing: row))")

            // Bob buys at the new price; both sales are estimated, each at its own price.
            try await world.buyOnPlay("garden", user: "bob")
            row = try await Self.playSalesInTheUS(world)
            #expect(row?["purchases"] as? Int == 2, "\(String(describing: row))")
            #expect(row?["revenue_milliunits"] as? Int == 2990 + 3490, "\(String(describing: row))")
            #expect(row?["estimated_revenue_milliunits"] as? Int == 2990 + 3490, "\(String(describing: row))")
            #expect(row?["estimated_refunded_milliunits"] as? Int == 0, "\(String(describing: row))")

            // The CSV export marks the estimate in its own columns.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            let today = formatter.string(from: Date())
            let csv = try await world.stack.gateway.get(
                "/v1/admin/reports/sales?from=\(today)&to=\(today)&environment=sandbox&group_by=store,storefront"
                    + "&format=csv", headers: [("authorization", "Bearer \(world.secretKey)")])
            let lines = String(decoding: csv.body, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            #expect(
                lines.first
                    == "store,storefront,currency,purchases,renewals,units,revenue_milliunits,refunds,"
                    + "refunded_milliunits,estimated_revenue_milliunits,estimated_refunded_milliunits", "\(lines)")
            #expect(lines.contains("play_store,US,USD,2,0,2,6480,0,0,6480,0"), "\(lines)")
        }
    }
}
