import Foundation
import NIOHTTP1
import Testing

/// The console's catalog pages and webhooks page in the browser (same suite and stack as ``ConsoleBrowserTests``).
extension ConsoleBrowserTests {
    @Test func editAProductAndSeeTheCatalogChange() async throws {
        let world = try self.world
        try await world.browse("console-edit-product") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/catalog/seeds_orchid")
            try await browser.element("select[name=review_state] option[value=approved]").click()
            let minimum = try await browser.element("input[name=min_app_version]")
            // A value the catalog refuses comes back in words, and nothing changes.
            try await minimum.clear()
            try await minimum.type("not a version")
            try await browser.element("button[type=submit]", containing: "Save product").click()
            let refused = try await browser.text(of: ".product-form .error") { $0.contains("not saved") }
            #expect(refused.contains("min_app_version"), "\(refused)")
            #expect(
                (try await world.object("/v1/admin/products/seeds_orchid"))["review_state"] as? String
                    == "waiting_for_review")

            try await minimum.clear()
            try await minimum.type("1.5")
            let name = try await browser.element("input[name='name-en']")
            try await name.clear()
            try await name.type("Orchid Seeds Deluxe")
            try await browser.element("button[type=submit]", containing: "Save product").click()
            _ = try await browser.text(of: "#status") { $0.contains("Saved seeds_orchid") }
            try await world.waitForPage(browser, "Catalog")
            let row = "tr[data-product='seeds_orchid']"
            _ = try await browser.element("\(row) .review-state", containing: "approved")
            _ = try await browser.element("\(row) .min-version", containing: "1.5")
            _ = try await browser.element("\(row) .localizations", containing: "Orchid Seeds Deluxe")

            let product = try await world.object("/v1/admin/products/seeds_orchid")
            #expect(product["review_state"] as? String == "approved")
            #expect(product["min_app_version"] as? String == "1.5")
            let english = (product["localizations"] as? [String: [String: Any]])?["en"]
            #expect(english?["name"] as? String == "Orchid Seeds Deluxe")
            #expect(english?["price_hint"] as? String == "$1.99", "fields the form does not show are kept")
        }
    }

    @Test func aDryRunImportShowsTheDifferenceAndChangesNothing() async throws {
        let world = try self.world
        let before = try await world.object("/v1/admin/catalog")
        var products = before["products"] as? [[String: Any]] ?? []
        let extraGarden = try #require(products.firstIndex { $0["product_id"] as? String == "extra_garden" })
        var localizations = products[extraGarden]["localizations"] as? [String: [String: Any]] ?? [:]
        localizations["en"]?["name"] = "Extra Garden, now bigger"
        products[extraGarden]["localizations"] = localizations
        products.removeAll { $0["product_id"] as? String == "service_year" }
        products.append([
            "product_id": "watering_can", "type": "non_consumable", "review_state": "approved",
            "store_product_ids": ["app_store": "com.shopkeeper.demo.garden.watering_can"],
            "default_locale": "en", "localizations": ["en": ["name": "Watering Can"]],
        ])
        let document = String(
            decoding: try JSONSerialization.data(withJSONObject: ["products": products], options: [.prettyPrinted]),
            as: UTF8.self)
        let auditBefore = try await world.object("/v1/admin/audit-log?limit=200")

        try await world.browse("console-import") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/catalog/import")
            try await browser.execute(
                """
                const area = document.querySelector('textarea[name=document]');
                area.value = arguments[0];
                area.dispatchEvent(new Event('input'));
                """, [document])
            try await browser.element("button[type=submit]", containing: "Preview changes").click()
            _ = try await browser.element("#import-diff")
            _ = try await browser.element("[data-diff=created]", containing: "watering_can")
            _ = try await browser.element("[data-diff=deleted]", containing: "service_year")
            let updated = try await browser.element("[data-diff=updated] [data-product=extra_garden]")
            let change = try await updated.text
            #expect(change.contains("localizations.en.name"), "\(change)")
            #expect(!change.contains("localizations.de"), "only what changes is listed: \(change)")
            #expect(change.contains("Extra Garden, now bigger"), "\(change)")
            _ = try await browser.element("#apply-import")
        }
        // Nothing changed, and a dry run is no admin action.
        let after = try await world.object("/v1/admin/catalog")
        #expect(NSDictionary(dictionary: after).isEqual(to: before))
        let auditAfter = try await world.object("/v1/admin/audit-log?limit=200")
        let imports = { (log: [String: Any]) in
            (log["entries"] as? [[String: Any]] ?? []).filter { $0["action"] as? String == "catalog.import" }.count
        }
        #expect(imports(auditAfter) == imports(auditBefore))
    }

    @Test func replayADeadWebhookFromThePage() async throws {
        let world = try self.world
        try await ConsoleWebhookReceiver.run { receiver in
            try await world.browse("console-webhook-replay") { browser in
                try await world.signIn(browser)
                try await world.go(browser, "/webhooks")
                let url = try await browser.element("input[name=webhook_url]")
                try await url.clear()
                try await url.type(receiver.url)
                try await browser.element(".webhook-form button[type=submit]").click()
                // A webhook's first URL comes with its signing secret, shown once.
                _ = try await browser.element("dialog[open] #webhook-secret")
                try await browser.element("dialog[open] button", containing: "Done").click()
                _ = try await browser.element("#webhook-url", containing: receiver.url)

                // An event whose deliveries fail (503) until it is a dead letter.
                let (status, granted) = try await world.api(
                    .POST, "/v1/customers/demo-webhook-\(UUID().uuidString.prefix(8))/grants",
                    json: ["entitlement_id": "garden_club", "expires_at": "2100-01-01T00:00:00Z"])
                #expect(status == 201, "\(String(describing: granted))")
                let grantID = try #require(
                    ((granted as? [String: Any])?["grant"] as? [String: Any])?["grant_id"] as? String)
                let eventID = try await browser.waitFor("the grant's event to be dead", timeout: .seconds(30)) {
                    () async throws -> String? in
                    let events = try await world.object("/v1/admin/events?type=promotional_grant&limit=20")
                    let event = (events["events"] as? [[String: Any]] ?? []).first {
                        ($0["data"] as? [String: Any])?["grant_id"] as? String == grantID
                    }
                    guard (event?["delivery"] as? [String: Any])?["state"] as? String == "dead" else { return nil }
                    return event?["id"] as? String
                }
                #expect(await receiver.refused > 0)

                // Fixed, then replayed from the dead letters.
                await receiver.fix()
                try await world.go(browser, "/webhooks?delivery=dead")
                let row = "tr[data-event='\(eventID)']"
                try await browser.element("\(row) button", containing: "Replay").click()
                try await browser.element("dialog[open] button[data-value='true']", containing: "Replay event").click()
                _ = try await browser.text(of: "#status") { $0.contains("queued for delivery again") }
                try await browser.waitFor("the receiver to get the event", timeout: .seconds(30)) {
                    await receiver.delivered.contains(eventID) ? true : nil
                }
                try await browser.waitFor("the page to show it delivered", timeout: .seconds(30)) {
                    () async throws -> Bool? in
                    try await world.go(browser, "/webhooks")
                    return try await browser.elements("tr[data-event='\(eventID)'][data-delivery='delivered']").isEmpty
                        ? nil : true
                }
            }
        }
    }
}
