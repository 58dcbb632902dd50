import Foundation
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

/// The console in a real browser (headless Chromium over WebDriver) against one real stack with the demo shop's
/// seeded sales (``ConsoleWorld``): signing in, the overview's figures against the reports API, support's customer
/// look-up and actions, the catalog, webhooks, the keyboard and a phone-sized window.
@Suite(.serialized, .consoleWorld) struct ConsoleBrowserTests {
    var world: ConsoleWorld {
        get throws { try #require(ConsoleWorld.current, "the console world did not start") }
    }

    @Test(arguments: Browser.Kind.allCases)
    func signingInWithASecretKeyKeepsNoKeyInTheBrowserAndA401ReturnsToSignIn(_ kind: Browser.Kind) async throws {
        let world = try self.world
        try await world.browse("console-sign-in", in: kind) { browser in
            // A wrong key is refused in words.
            let key = try await browser.element("#sign-in-key")
            try await key.type("sk_not_a_real_key")
            try await browser.element("#sign-in-submit").click()
            _ = try await browser.text(of: "#sign-in-error") { $0.contains("Sign-in failed") }

            try await key.clear()
            try await world.signIn(browser)
            try await world.waitForPage(browser, "Overview")
            let session = try #require(try await browser.cookies()["shopkeeper_session"])
            #expect(session["httpOnly"] as? Bool == true)
            #expect(session["sameSite"] as? String == "Strict")
            let kept =
                try await browser.execute(
                    """
                    return [document.cookie, localStorage.length, sessionStorage.length,
                            document.documentElement.outerHTML.includes(arguments[0]),
                            document.getElementById('sign-in-key').value];
                    """, [world.secretKey]) as? [Any]
            #expect(kept?[0] as? String == "")
            #expect(kept?[1] as? Int == 0)
            #expect(kept?[2] as? Int == 0)
            #expect(kept?[3] as? Bool == false)
            #expect(kept?[4] as? String == "")

            // The session ends behind the page's back (here: its cookie is gone): the next call's 401 signs out.
            try await browser.deleteCookies()
            try await browser.execute("location.hash = '#/customers?query=demo-'")
            _ = try await browser.text(of: "#sign-in-notice") { $0.contains("session has ended") }
            #expect(try await browser.element("#sign-in").isDisplayed)

            // Signing out ends the session at the server.
            try await world.signIn(browser)
            let token = try #require(try await browser.cookies()["shopkeeper_session"]?["value"] as? String)
            try await browser.element("#sign-out").click()
            _ = try await browser.text(of: "#sign-in-notice") { $0.contains("signed out") }
            let after = try await world.stack.gateway.get(
                "/console/api/session", headers: [("Cookie", "shopkeeper_session=\(token)")])
            #expect(after.status == .unauthorized)
        }
    }

    @Test func theOperatorKeyListsTheAppsToPickFrom() async throws {
        let world = try self.world
        try await world.browse("console-operator") { browser in
            try await browser.element("#sign-in-key").type(ConsoleWorld.operatorKey)
            try await browser.element("#sign-in-submit").click()
            _ = try await browser.element("#sign-in-app option", containing: world.appID)
            try await browser.element("#sign-in-submit", containing: "Sign in to this app").click()
            _ = try await browser.element("#who", containing: "as the operator")
            _ = try await browser.element("#switch-app option", containing: "Demo Garden")
            try await world.waitForPage(browser, "Overview")
        }
    }

    @Test(arguments: Browser.Kind.allCases)
    func theOverviewShowsTheReportAPIsFigures(_ kind: Browser.Kind) async throws {
        let world = try self.world
        let to = Self.day(0)
        let from = Self.day(-41)
        try await world.browse("console-overview", in: kind) { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/overview?from=\(from)&to=\(to)&environment=production")
            let shown = try await Self.figures(browser)

            let query = "from=\(from)&to=\(to)&environment=production"
            let sales = try await world.object("/v1/admin/reports/sales?\(query)&group_by=day")
            let subscriptions = try await world.object("/v1/admin/reports/subscriptions?\(query)&group_by=day")
            let totals = sales["totals"] as? [[String: Any]] ?? []
            func sum(_ key: String) -> Int { totals.reduce(0) { $0 + ($1[key] as? Int ?? 0) } }
            let subscriptionTotals = (subscriptions["totals"] as? [[String: Any]])?.first ?? [:]
            let lastDay = (subscriptions["rows"] as? [[String: Any]] ?? []).first { $0["day"] as? String == to } ?? [:]

            #expect(sum("purchases") > 0, "the demo shop has sales")
            #expect(shown["purchases"] == String(sum("purchases")))
            #expect(shown["renewals"] == String(sum("renewals")))
            #expect(shown["units"] == String(sum("units")))
            #expect(shown["refunds"] == String(sum("refunds")))
            #expect(sum("refunds") == 1)
            for total in totals {
                guard let currency = total["currency"] as? String else { continue }
                #expect(shown["revenue/\(currency)"] == String(total["revenue_milliunits"] as? Int ?? -1))
            }
            #expect(Int(shown["revenue/USD"] ?? "") ?? 0 > 0)
            #expect(shown["trials_started"] == String(subscriptionTotals["trials_started"] as? Int ?? 0))
            #expect(shown["trials_converted"] == String(subscriptionTotals["trials_converted"] as? Int ?? 0))
            #expect(shown["new_subscriptions"] == String(subscriptionTotals["new_subscriptions"] as? Int ?? 0))
            #expect(shown["churned"] == String(subscriptionTotals["churned"] as? Int ?? 0))
            #expect(shown["active_subscriptions"] == String(lastDay["active"] as? Int ?? 0))
            // The charts are drawn, with bars for the sales.
            let bars = try await browser.execute("return document.querySelectorAll('figure.chart svg rect.bar').length")
            #expect((bars as? Int ?? 0) > 0)
        }
    }

    @Test(arguments: Browser.Kind.allCases)
    func findACustomerByTransactionIDAndReadWhyTheyHaveAccess(_ kind: Browser.Kind) async throws {
        let world = try self.world
        let (customer, entitlement, transactionID) = try await Self.customerWithAccess(world)
        try await world.browse("console-find-customer", in: kind) { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/customers")
            let search = try await browser.element("input[name=query]")
            try await search.type(transactionID)
            try await browser.element("form.search button[type=submit]").click()
            // A Google Play order id is its transaction id: either way the match names the field it matched.
            let match = try await browser.element("#search-results tbody tr", containing: transactionID)
            let matched = try await match.text
            #expect(matched.contains("Transaction id") || matched.contains("Google Play order id"), "\(matched)")
            try await browser.element("#search-results a.customer-link", containing: customer).click()
            try await world.waitForPage(browser, "Customer \(customer)")
            let why = try await browser.text(of: "li.entitlement[data-entitlement='\(entitlement)']") {
                $0.contains("active")
            }
            #expect(why.contains("original transaction"), "\(why)")
            #expect(why.contains("since"), "\(why)")
        }
    }

    @Test func grantAndRevokeAPromotionalEntitlement() async throws {
        let world = try self.world
        let (customer, _, _) = try await Self.customerWithAccess(world)
        let entitlement = try await Self.entitlementNotOwned(by: customer, world)
        try await world.browse("console-grant") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/customers/\(customer)")
            let input = try await browser.element("input[name=entitlement_id]")
            try await input.type(entitlement)
            // Asked first: cancelling (Escape) sends nothing.
            try await browser.element(".grant-form button[type=submit]").click()
            _ = try await browser.element("dialog[open]", containing: "Grant this entitlement?")
            try await browser.press(Browser.Keys.escape)
            try await browser.waitFor("the dialog to close") {
                try await browser.elements("dialog[open]").isEmpty ? true : nil
            }
            #expect(try await Self.entitlement(entitlement, of: customer, world) == nil)

            try await browser.element(".grant-form button[type=submit]").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Grant").click()
            _ = try await browser.text(of: "#status") { $0.contains("Granted \(entitlement)") }
            let granted = try #require(try await Self.entitlement(entitlement, of: customer, world))
            #expect(granted["active"] as? Bool == true)
            #expect(granted["source"] as? String == "promotional")
            _ = try await browser.element(
                "li.entitlement[data-entitlement='\(entitlement)']", containing: "Promotional grant")

            let row = "tr[data-state='active']"
            let revoke = try await browser.element("table.grants \(row) button", containing: "Revoke")
            try await revoke.click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Revoke grant").click()
            _ = try await browser.text(of: "#status") { $0.contains("Revoked grant") }
            let after = try await Self.entitlement(entitlement, of: customer, world)
            #expect(after == nil || after?["active"] as? Bool == false)

            // Both changes are in the audit log, made through this console session.
            try await world.go(browser, "/audit")
            _ = try await browser.element("tr[data-action='promotional_grant.create']", containing: "console session")
            _ = try await browser.element("tr[data-action='promotional_grant.revoke']", containing: customer)
        }
    }

    // MARK: Helpers

    /// The overview's figures by name (`revenue/USD` for money), as their raw values.
    static func figures(_ browser: Browser) async throws -> [String: String] {
        let pairs =
            try await browser.execute(
                """
                return [...document.querySelectorAll('#figures [data-figure]')].map(tile =>
                  [tile.dataset.figure + (tile.dataset.currency ? '/' + tile.dataset.currency : ''), tile.dataset.value]);
                """) as? [[String]] ?? []
        return Dictionary(pairs.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }) { first, _ in first }
    }

    /// A seeded customer with an active entitlement from a store purchase: the customer, the entitlement and a
    /// transaction id of that purchase.
    static func customerWithAccess(_ world: ConsoleWorld) async throws -> (String, String, String) {
        let found = try await world.object("/v1/admin/customers?query=demo-&limit=50")
        for match in found["matches"] as? [[String: Any]] ?? [] {
            guard let customer = (match["app_user_ids"] as? [String])?.first else { continue }
            let explained = try await world.object("/v1/customers/\(customer)/explain")
            let history = try await world.object("/v1/customers/\(customer)/history")
            let transactions = history["transactions"] as? [[String: Any]] ?? []
            for (entitlement, value) in explained["entitlements"] as? [String: [String: Any]] ?? [:] {
                guard value["active"] as? Bool == true,
                    let reason = (value["reasons"] as? [[String: Any]])?.first,
                    let original = reason["original_transaction_id"] as? String,
                    let transaction = transactions.last(where: { $0["original_transaction_id"] as? String == original }
                    ),
                    let transactionID = transaction["transaction_id"] as? String
                else { continue }
                return (customer, entitlement, transactionID)
            }
        }
        throw Browser.Failure("no seeded customer has access through a store purchase")
    }

    /// The customer's entitlement in customer info, or `nil` when it has none.
    static func entitlement(_ id: String, of customer: String, _ world: ConsoleWorld) async throws -> [String: Any]? {
        let info = try await world.object("/v1/customers/\(customer)")
        return (info["entitlements"] as? [String: [String: Any]])?[id]
    }

    /// The UTC day `offset` days from today, `YYYY-MM-DD`.
    static func day(_ offset: Int) -> String {
        let date = Date().addingTimeInterval(Double(offset) * 86_400)
        return date.formatted(Date.ISO8601FormatStyle().year().month().day())
    }
}
