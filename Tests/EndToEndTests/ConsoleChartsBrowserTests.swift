import Foundation
import NIOHTTP1
import Testing

/// The Charts page and the controls each role is shown (same suite and stack as ``ConsoleBrowserTests``): a chart's
/// CSV holds exactly the reports API's figures; a viewer reads the charts and is offered nothing to change; a support
/// member finds a customer and grants.
extension ConsoleBrowserTests {
    @Test func eachChartsCSVHoldsTheReportAPIsFigures() async throws {
        let world = try self.world
        let to = Self.day(0)
        let from = Self.day(-41)
        // Rates by hand, before the range: every USD period converts at them (the latest day on or before its start).
        let rates: [String: Any] = [
            "base": "EUR", "rates": [["day": Self.day(-400), "currency": "USD", "rate": "1.0962"]],
        ]
        let (loaded, _) = try await world.api(.PUT, "/v1/admin/exchange-rates", json: rates)
        #expect(loaded == 200)
        let query = "from=\(from)&to=\(to)&environment=production&currency=EUR"
        let byDay = try await world.object("/v1/admin/reports/mrr?\(query)&group_by=day")
        let byProduct = try await world.object("/v1/admin/reports/mrr?\(query)&group_by=day,product")
        let rows = byDay["rows"] as? [[String: Any]] ?? []
        #expect(rows.contains { $0["mrr_milliunits"] as? Int ?? 0 > 0 }, "the demo shop has MRR in the range")

        try await world.browse("console-charts") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/charts?from=\(from)&to=\(to)&currency=EUR")
            try await world.waitForPage(browser, "Charts")
            let days = (-41...0).map { Self.day($0) }
            let figures = ["mrr_milliunits"]
            let movements = ["new", "reactivation", "expansion", "contraction", "churn"].map { "\($0)_milliunits" }
            #expect(try await Self.chartCSV(browser, "mrr") == Self.csv(days, rows, figures))
            #expect(try await Self.chartCSV(browser, "mrr-movements") == Self.csv(days, rows, movements))
            #expect(
                try await Self.chartCSV(browser, "active-subscriptions")
                    == Self.csv(days, rows, ["active_subscriptions"]))
            // Every point names its figure on hover (money as Intl writes it: the code, a no-break space, units).
            let lastDay = rows.first { $0["day"] as? String == to } ?? [:]
            let units = Double(lastDay["mrr_milliunits"] as? Int ?? 0) / 1000
            let hover = try await browser.execute(
                "return document.querySelector('[data-chart=mrr] circle:last-of-type title').textContent")
            let title = (hover as? String ?? "").replacingOccurrences(of: "\u{a0}", with: " ")
            #expect(title.hasPrefix("\(to): MRR EUR"), "\(title)")
            let shown = Double(title.split(separator: " ").last?.replacingOccurrences(of: ",", with: "") ?? "") ?? -1
            #expect(abs(shown - units) <= 0.005, "\(title) ≠ \(units)")

            // Grouped by product: a line per product, each its rows' MRR.
            try await world.go(browser, "/charts?from=\(from)&to=\(to)&currency=EUR&group=product")
            let grouped = try await Self.chartCSV(browser, "mrr-by-product")
            let header = grouped.split(separator: "\r\n").first.map(String.init) ?? ""
            let products = header.split(separator: ",").dropFirst().map(String.init)
            #expect(!products.isEmpty)
            // Each product is named beside its colour, even when it is the only one.
            for product in products where product != "other" {
                _ = try await browser.element("[data-chart='mrr-by-product'] .legend li", containing: product)
            }
            let productRows = byProduct["rows"] as? [[String: Any]] ?? []
            if !products.contains("other") {
                var lines = ["day," + products.joined(separator: ",")]
                for day in days {
                    let values = products.map { product in
                        productRows.first { $0["day"] as? String == day && $0["product_id"] as? String == product }?[
                            "mrr_milliunits"] as? Int ?? 0
                    }
                    lines.append(([day] + values.map(String.init)).joined(separator: ","))
                }
                #expect(grouped == lines.joined(separator: "\r\n") + "\r\n")
            }
        }
    }

    @Test func aViewerSeesTheChartsAndNoControlToChangeAnything() async throws {
        let world = try self.world
        let password = try await Self.member(world, email: "viewer@example.com", role: "viewer")
        try await world.browse("console-viewer") { browser in
            try await Self.signInAsMember(browser, world, email: "viewer@example.com", password: password)
            _ = try await browser.element("#who", containing: "viewer@example.com (viewer)")
            let shown = try await browser.execute(
                "return [...document.querySelectorAll('#nav li:not([hidden]) a')].map(a => a.dataset.section)")
            #expect(shown as? [String] == ["overview", "charts", "catalog", "offerings", "experiments", "account"])

            try await world.go(browser, "/charts")
            try await world.waitForPage(browser, "Charts")
            let charts = try await browser.execute("return document.querySelectorAll('.chart-block svg').length")
            #expect((charts as? Int ?? 0) >= 3)
            #expect(try await Self.changeControls(browser).isEmpty)

            try await world.go(browser, "/overview")
            #expect(try await Self.changeControls(browser).isEmpty)
            try await world.go(browser, "/catalog")
            #expect(try await Self.changeControls(browser).isEmpty)
            let product = try await browser.element("table.products a", containing: "View")
            try await product.click()
            _ = try await browser.element(".product-form.read-only")
            #expect(try await Self.changeControls(browser).isEmpty)
            let enabled = try await browser.execute(
                "return document.querySelectorAll('.product-form input:not([disabled]), .product-form select:not([disabled])').length"
            )
            #expect(enabled as? Int == 0)
        }
    }

    @Test func aSupportMemberFindsACustomerAndGrants() async throws {
        let world = try self.world
        let (customer, _, _) = try await Self.customerWithAccess(world)
        let entitlement = try await Self.entitlementNotOwned(by: customer, world)
        let password = try await Self.member(world, email: "support@example.com", role: "support")
        try await world.browse("console-support-grant") { browser in
            try await Self.signInAsMember(browser, world, email: "support@example.com", password: password)
            _ = try await browser.element("#who", containing: "support@example.com (support)")
            try await world.go(browser, "/customers")
            try await browser.element("input[name=query]").type(customer)
            try await browser.element("form.search button[type=submit]").click()
            try await browser.element("#search-results a.customer-link", containing: customer).click()
            try await world.waitForPage(browser, "Customer \(customer)")
            try await browser.element("input[name=entitlement_id]").type(entitlement)
            try await browser.element(".grant-form button[type=submit]").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Grant").click()
            _ = try await browser.text(of: "#status") { $0.contains("Granted \(entitlement)") }
            let granted = try #require(try await Self.entitlement(entitlement, of: customer, world))
            #expect(granted["source"] as? String == "promotional")
            // Support may revoke it too (and leaves the customer as it was).
            try await browser.element("table.grants tr[data-state='active'] button", containing: "Revoke").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Revoke grant").click()
            _ = try await browser.text(of: "#status") { $0.contains("Revoked grant") }
            // The catalog is read only for support.
            try await world.go(browser, "/catalog")
            #expect(try await Self.changeControls(browser).isEmpty)
        }
    }

    // MARK: Helpers

    /// One of the demo's entitlements `customer` does not have now (to grant it).
    static func entitlementNotOwned(by customer: String, _ world: ConsoleWorld) async throws -> String {
        let info = try await world.object("/v1/customers/\(customer)")
        let entitlements = info["entitlements"] as? [String: [String: Any]] ?? [:]
        let owned = Set(entitlements.filter { $0.value["active"] as? Bool == true }.keys)
        return try #require(["garden_service", "greenhouse", "seeds_orchid"].first { !owned.contains($0) })
    }

    /// Invites `email` with `role` and accepts the invitation; answers the password.
    static func member(_ world: ConsoleWorld, email: String, role: String) async throws -> String {
        let (status, body) = try await world.api(.POST, "/v1/admin/users", json: ["email": email, "role": role])
        #expect(status == 201)
        let token = try #require((body as? [String: Any])?["invitation_token"] as? String)
        let password = "a long enough \(role) password"
        let (accepted, _) = try await world.api(
            .POST, "/console/api/invitation", json: ["token": token, "password": password])
        #expect(accepted == 204)
        return password
    }

    /// Signs in through the team form.
    static func signInAsMember(_ browser: Browser, _ world: ConsoleWorld, email: String, password: String)
        async throws
    {
        try await browser.element("#team-sign-in-app").type(world.appID)
        try await browser.element("#team-sign-in-email").type(email)
        try await browser.element("#team-sign-in-password").type(password)
        try await browser.element("#team-sign-in-submit").click()
        _ = try await browser.element("#who", containing: email)
    }

    /// The page's buttons and button-links that would change something (edit, grant, delete, ...), by their text.
    static func changeControls(_ browser: Browser) async throws -> [String] {
        try await browser.execute(
            """
            const words = /edit|import|grant|revoke|delete|remove|save|replay|clear|reset|invite|rotate|add/i;
            return [...document.querySelectorAll('#view button, #view a.button, #view a')]
              .map(e => e.textContent.trim()).filter(text => words.test(text));
            """) as? [String] ?? []
    }

    /// The CSV the chart `id` offers, as its link holds it.
    static func chartCSV(_ browser: Browser, _ id: String) async throws -> String {
        let href = try await browser.element("[data-chart='\(id)'] a.csv").attribute("href") ?? ""
        let prefix = "data:text/csv;charset=utf-8,"
        #expect(href.hasPrefix(prefix))
        return String(href.dropFirst(prefix.count)).removingPercentEncoding ?? ""
    }

    /// The CSV the API's `rows` make for `columns`: a line per day, a day without a row as zeros.
    static func csv(_ days: [String], _ rows: [[String: Any]], _ columns: [String]) -> String {
        var lines = [(["day"] + columns).joined(separator: ",")]
        for day in days {
            let row = rows.first { $0["day"] as? String == day } ?? [:]
            lines.append(([day] + columns.map { String(row[$0] as? Int ?? 0) }).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
