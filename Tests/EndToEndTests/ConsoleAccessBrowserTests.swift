import Foundation
import Testing

/// The console with the keyboard alone, in a phone-sized window, and every page once (same suite and stack as
/// ``ConsoleBrowserTests``).
extension ConsoleBrowserTests {
    @Test(arguments: Browser.Kind.allCases)
    func signInAndFindACustomerWithTheKeyboardAlone(_ kind: Browser.Kind) async throws {
        let world = try self.world
        let (customer, _, _) = try await Self.customerWithAccess(world)
        try await world.browse("console-keyboard", in: kind) { browser in
            // The page puts focus in the key field; typing and Enter sign in.
            try await Self.waitForFocus(browser, "e.id === 'sign-in-key'")
            try await browser.typeKeys(world.secretKey)
            try await browser.press(Browser.Keys.enter)
            _ = try await browser.element("#app-name", containing: "Demo Garden")
            try await world.waitForPage(browser, "Overview")

            // Back from the page's heading to the navigation above it (forward, Firefox would pass through its own
            // toolbar first).
            try await Self.tab(browser, backwards: true, until: "e.matches('#nav a') && e.textContent === 'Customers'")
            #expect(try await Self.outlineShown(browser), "focus is visible")
            try await browser.press(Browser.Keys.enter)
            try await world.waitForPage(browser, "Customers")
            try await Self.tab(browser, until: "e.name === 'query'")
            try await browser.typeKeys(customer)
            try await browser.press(Browser.Keys.enter)
            _ = try await browser.element("#search-results a.customer-link", containing: customer)
            try await Self.tab(browser, until: "e.classList.contains('customer-link')")
            try await browser.press(Browser.Keys.enter)
            try await world.waitForPage(browser, "Customer \(customer)")

            // A confirmation dialog holds the focus and closes on Escape, sending nothing.
            try await Self.tab(browser, until: "e.name === 'entitlement_id'")
            try await browser.typeKeys("garden_service")
            try await browser.press(Browser.Keys.enter)
            _ = try await browser.element("dialog[open]", containing: "Grant this entitlement?")
            try await Self.waitForFocus(browser, "e.closest('dialog[open]') !== null")
            for _ in 0..<5 {
                try await browser.press(Browser.Keys.tab)
                #expect(try await Self.focus(browser, "e.closest('dialog[open]') !== null"), "Tab stays in the dialog")
            }
            try await browser.press(Browser.Keys.escape)
            try await browser.waitFor("the dialog to close") {
                try await browser.elements("dialog").isEmpty ? true : nil
            }
            let grants = (try await world.object("/v1/customers/\(customer)/history"))["grants"] as? [[String: Any]]
            #expect(grants?.contains { $0["entitlement_id"] as? String == "garden_service" } != true)
        }
    }

    /// Chromium only: Firefox's window is never narrower than 500 pixels, wider than a phone.
    @Test func aPhoneSizedWindowShowsTheOverviewWithoutSidewaysScrolling() async throws {
        let world = try self.world
        try await world.browse("console-phone", width: 390, height: 844) { browser in
            try await world.signIn(browser)
            try await world.waitForPage(browser, "Overview")
            _ = try await browser.element("#figures [data-figure=purchases]")
            let layout =
                try await browser.execute(
                    """
                    const root = document.documentElement;
                    const outside = [...document.querySelectorAll('#view *')].filter(e => !e.parentElement.closest('.table-wrap'));
                    const widest = Math.max(...outside.map(e => e.getBoundingClientRect().right));
                    return [window.innerWidth, root.scrollWidth, root.clientWidth, Math.ceil(widest)];
                    """) as? [Int] ?? []
            #expect(layout.count == 4)
            let (inner, scroll, client, widest) = (layout[0], layout[1], layout[2], layout[3])
            #expect(inner <= 420, "the window is phone-sized: \(layout)")
            #expect(scroll <= client, "the page does not scroll sideways: \(layout)")
            #expect(widest <= client, "nothing sticks out: \(layout)")
            let charts = try await browser.execute("return document.querySelectorAll('figure.chart svg').length")
            #expect((charts as? Int ?? 0) > 0)
        }
    }

    @Test(arguments: Browser.Kind.allCases)
    func everyPageLoadsAndSaysWhatItShows(_ kind: Browser.Kind) async throws {
        let world = try self.world
        try await world.browse("console-pages", in: kind) { browser in
            try await world.signIn(browser)
            for (route, heading) in [
                ("/content", "Content"), ("/settings", "Settings"), ("/audit", "Audit log"),
                ("/webhooks", "Webhooks and events"), ("/catalog", "Catalog"), ("/customers?query=demo-", "Customers"),
                ("/team", "Team"), ("/charts", "Charts"), ("/account", "Your account"),
            ] {
                try await world.go(browser, route)
                try await world.waitForPage(browser, heading)
                let alerts = try await browser.execute(
                    "return [...document.querySelectorAll('#view [role=alert]')].map(e => e.textContent).join(' ')")
                #expect((alerts as? String ?? "").isEmpty, "\(route): \(String(describing: alerts))")
            }
            // Content: the demo's packs with their version; settings: the sandbox store's credentials are set.
            try await world.go(browser, "/content")
            _ = try await browser.element("tr[data-product='seeds_sunflower'][data-version='1.0.0']")
            try await world.go(browser, "/settings")
            _ = try await browser.element("#store-apple + dl", containing: "set")
            // A page that does not exist says so.
            try await world.go(browser, "/nowhere")
            _ = try await browser.element("#view h1", containing: "Not found")
        }
    }

    // MARK: Keyboard helpers

    /// Whether the focused element (`e` in `condition`) satisfies `condition`, with the focus in the page (Tab in
    /// Firefox also visits the browser's own toolbar, while the page's `activeElement` stays what it was).
    static func focus(_ browser: Browser, _ condition: String) async throws -> Bool {
        try await browser.execute(
            "const e = document.activeElement; return Boolean(document.hasFocus() && e && (\(condition)));") as? Bool
            ?? false
    }

    static func waitForFocus(_ browser: Browser, _ condition: String) async throws {
        try await browser.waitFor("focus on \(condition)") { try await focus(browser, condition) ? true : nil }
    }

    /// Presses Tab (Shift+Tab `backwards`) until the focused element satisfies `condition` (at most `limit` times).
    static func tab(_ browser: Browser, backwards: Bool = false, until condition: String, limit: Int = 60)
        async throws
    {
        for _ in 0..<limit {
            if backwards {
                try await browser.press(Browser.Keys.tab, holding: Browser.Keys.shift)
            } else {
                try await browser.press(Browser.Keys.tab)
            }
            if try await focus(browser, condition) { return }
        }
        throw Browser.Failure("Tab never reached \(condition)")
    }

    /// Whether the focused element shows a focus outline.
    static func outlineShown(_ browser: Browser) async throws -> Bool {
        try await browser.execute(
            "const s = getComputedStyle(document.activeElement); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;"
        ) as? Bool ?? false
    }
}
