import Foundation
import NIOHTTP1
import Testing

/// The console's offerings and experiments pages in the browser (same suite and stack as ``ConsoleBrowserTests``):
/// an offering created with its paywall previewed in another locale, an experiment over it started, its customers
/// exposed through `GET /v1/offerings`, its results read and it stopped; the demo shop's running experiment with the
/// customers `shopkeeper seed sales` sent it; a viewer reads without the controls that change anything.
extension ConsoleBrowserTests {
    /// A paywall with English (default) and German texts.
    static var winterPaywall: [String: Any] {
        [
            "layout": "hero", "colors": ["accent": "#1565C0", "background": "#E3F2FD"],
            "image_urls": ["header": "https://example.com/winter.png"], "default_locale": "en",
            "localizations": [
                "en": ["title": "A winter garden", "features": ["Frost cloth"], "call_to_action": "Try a year"],
                "de": ["title": "Ein Wintergarten", "features": ["Frostschutz"], "call_to_action": "Ein Jahr testen"],
            ],
        ]
    }

    @Test func createAnOfferingPreviewItsPaywallRunAnExperimentAndReadItsResults() async throws {
        let world = try self.world
        let suffix = UUID().uuidString.prefix(6).lowercased()
        let offeringID = "winter-\(suffix)"
        let experimentID = "winter_\(suffix)"
        let paywall = String(
            decoding: try JSONSerialization.data(withJSONObject: Self.winterPaywall, options: [.sortedKeys]),
            as: UTF8.self)
        try await world.browse("console-offering") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/offerings/new")
            try await browser.element("input[name=offering_id]").type(offeringID)
            try await browser.element("#packages input[name=package_id]").type("$annual")
            try await browser.element("#packages select[name=product_id] option[value=service_year]").click()
            try await browser.execute(
                """
                const area = document.querySelector('textarea[name=paywall]');
                area.value = arguments[0];
                area.dispatchEvent(new Event('input'));
                """, [paywall])
            // The preview follows the locale asked for: de-AT gets the German texts, ja-JP the default English.
            let locale = try await browser.element("#preview-locale")
            try await locale.clear()
            try await locale.type("de-AT")
            _ = try await browser.text(of: "#paywall-preview .paywall-title") { $0 == "Ein Wintergarten" }
            #expect(try await browser.element("#paywall-preview").attribute("data-locale") == "de")
            _ = try await browser.element("#paywall-preview [data-package='$annual']", containing: "service_year")
            try await locale.clear()
            try await locale.type("ja-JP")
            _ = try await browser.text(of: "#paywall-preview .paywall-title") { $0 == "A winter garden" }

            // Checked first (a dry run writes nothing), then saved.
            try await browser.element("#check-offering").click()
            _ = try await browser.text(of: "#offering-checked") { $0.contains("Checked") }
            #expect(try await world.api(.GET, "/v1/admin/offerings/\(offeringID)").status == 404)
            try await browser.element("#save-offering").click()
            _ = try await browser.text(of: "#status") { $0.contains("Saved \(offeringID)") }
            try await world.waitForPage(browser, "Offerings")
            _ = try await browser.element("tr[data-offering='\(offeringID)'] .packages", containing: "service_year")

            // A rule serving it to French speakers, added and moved first on the page, then checked and saved.
            let ruleID = "french-\(suffix)"
            try await browser.element(".rule-form input[name=rule_id]").type(ruleID)
            try await browser.element(".rule-form select[name=rule_offering] option[value='\(offeringID)']").click()
            try await browser.element(".rule-form input[name=locales]").type("fr")
            try await browser.element(".rule-form button[type=submit]").click()
            try await browser.element("tr[data-rule='\(ruleID)'] button", containing: "Up").click()
            _ = try await browser.element(".rules-table tbody tr:first-child[data-rule='\(ruleID)']")
            try await browser.element("#save-rules").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Save rules").click()
            _ = try await browser.text(of: "#status") { $0.contains("Rules saved: 1 rule(s) added") }
            let rules = try await world.object("/v1/admin/offering-rules")["rules"] as? [[String: Any]] ?? []
            #expect(rules.map { $0["rule_id"] as? String } == [ruleID, "german_storefronts"])
            #expect(rules.first?["locales"] as? [String] == ["fr"])
        }
        let stored = try await world.object("/v1/admin/offerings/\(offeringID)")
        #expect((stored["packages"] as? [[String: Any]])?.first?["product_id"] as? String == "service_year")
        #expect(((stored["paywall"] as? [String: Any])?["localizations"] as? [String: Any])?.count == 2)

        try await world.browse("console-experiment") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/experiments")
            try await browser.element("input[name=experiment_id]").type(experimentID)
            try await browser.element("input[name=experiment_name]").type("Winter against standard")
            try await browser.element("select[name=variant-offering-0] option[value=standard]").click()
            try await browser.element("select[name=variant-offering-1] option[value='\(offeringID)']").click()
            try await browser.element(".experiment-form button[type=submit]").click()
            try await world.waitForPage(browser, "Experiment \(experimentID)")
            _ = try await browser.element("#experiment-state", containing: "draft")
            _ = try await browser.element("#experiment-leader", containing: "Nobody")

            try await browser.element("#start-experiment").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Start experiment").click()
            _ = try await browser.text(of: "#status") { $0.contains("Started \(experimentID)") }
            _ = try await browser.element("#experiment-state", containing: "running")

            // Customers of a 2.0 Play build (outside the demo experiment's audience) read the offerings: exposed.
            let customers = (0..<6).map { "winter-\(suffix)-\($0)" }
            for customer in customers {
                try await browser.waitFor("\(customer) to be shown a variant of \(experimentID)") {
                    () async throws -> Bool? in
                    let (status, body) = try await world.api(
                        .GET, "/v1/offerings?app_user_id=\(customer)&platform=play_store&app_version=2.0",
                        key: world.publicKey)
                    let pick = (body as? [String: Any])?["experiment"] as? [String: Any]
                    return status == 200 && pick?["id"] as? String == experimentID ? true : nil
                }
            }
            try await world.go(browser, "/experiments/\(experimentID)")
            let report = try await world.object("/v1/admin/reports/experiments/\(experimentID)")
            let variants = report["variants"] as? [[String: Any]] ?? []
            #expect(variants.reduce(0) { $0 + ($1["customers_exposed"] as? Int ?? 0) } == customers.count)
            for variant in variants {
                let key = try #require(variant["key"] as? String)
                let exposed = try await browser.element("tr[data-variant='\(key)'] .exposed").text
                #expect(exposed == "\(variant["customers_exposed"] as? Int ?? -1)", "variant \(key)")
            }
            _ = try await browser.element("#experiment-leader", containing: "over \(customers.count) customer(s)")
            _ = try await browser.element("#conversion-chart svg g.variant")
            // The CSV link works with the session alone.
            let csv =
                try await browser.executeAsync(
                    """
                    const done = arguments[arguments.length - 1];
                    fetch(document.getElementById('experiment-csv').getAttribute('href'), { credentials: 'same-origin' })
                      .then((response) => response.text()).then(done, (error) => done(String(error)));
                    """) as? String
            #expect(csv?.contains(offeringID) == true, "\(csv ?? "nil")")

            try await browser.element("#stop-experiment").click()
            try await browser.element("dialog[open] button[data-value='true']", containing: "Stop experiment").click()
            _ = try await browser.text(of: "#status") { $0.contains("Stopped \(experimentID)") }
            _ = try await browser.element("#experiment-state", containing: "stopped")
        }
        #expect((try await world.object("/v1/admin/experiments/\(experimentID)"))["state"] as? String == "stopped")
    }

    @Test func theDemoShopsExperimentShowsTheCustomersSeedSalesSentIt() async throws {
        let world = try self.world
        let report = try await world.object("/v1/admin/reports/experiments/club_first_de")
        let variants = report["variants"] as? [[String: Any]] ?? []
        let exposed = variants.reduce(0) { $0 + ($1["customers_exposed"] as? Int ?? 0) }
        #expect(exposed == 8, "seed sales sends as many shoppers as customers (--customers 8)")
        let bought = variants.reduce(0) { $0 + ($1["purchases"] as? Int ?? 0) + ($1["trials_started"] as? Int ?? 0) }
        try await world.browse("console-demo-experiment") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/experiments")
            _ = try await browser.element("tr[data-experiment='club_first_de'][data-state='running']")
            try await world.go(browser, "/experiments/club_first_de")
            _ = try await browser.element("#experiment-state", containing: "running")
            _ = try await browser.element("#experiment-leader", containing: "over 8 customer(s)")
            let shown =
                try await browser.execute(
                    """
                    return [...document.querySelectorAll('.experiment-results tbody tr')]
                      .map((row) => Number(row.querySelector('.purchases').textContent)).reduce((a, b) => a + b, 0);
                    """) as? Int
            #expect(shown == variants.reduce(0) { $0 + ($1["purchases"] as? Int ?? 0) })
        }
        #expect(bought > 0, "with the plan's seed some shoppers convert: \(variants)")
    }

    @Test func theExperimentsCommandListsShowsChecksAndReportsTheDemoExperiment() async throws {
        let world = try self.world
        let cli = ["SHOPKEEPER_GATEWAY_URL": world.gatewayURL, "SHOPKEEPER_SECRET_KEY": world.secretKey]
        let listed = try runCLI(["experiments", "list"], environment: cli)
        #expect(listed.status == 0 && listed.output.contains("\"club_first_de\""), "\(listed.output)")
        let shown = try runCLI(["experiments", "show", "club_first_de"], environment: cli)
        #expect(shown.status == 0 && shown.output.contains("\"running\""), "\(shown.output)")
        // A dry run of stop checks and changes nothing; starting a running experiment changes nothing either.
        let dryStop = try runCLI(["experiments", "stop", "club_first_de", "--dry-run"], environment: cli)
        #expect(dryStop.status == 0, "\(dryStop.output)")
        let started = try runCLI(["experiments", "start", "club_first_de"], environment: cli)
        #expect(started.status == 0 && started.output.contains("\"running\""), "\(started.output)")
        #expect((try await world.object("/v1/admin/experiments/club_first_de"))["state"] as? String == "running")

        let json = try runCLI(["experiments", "results", "club_first_de"], environment: cli)
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(report?["report"] as? String == "experiment", "\(json.output)")
        #expect(
            (report?["variants"] as? [[String: Any]])?.map { $0["offering_id"] as? String } == ["germany", "standard"])
        let csv = try runCLI(["experiments", "results", "club_first_de", "--format", "csv"], environment: cli)
        #expect(csv.status == 0 && csv.output.contains("germany") && csv.output.contains("standard"), "\(csv.output)")
        let missing = try runCLI(["experiments", "results", "no_such_experiment"], environment: cli)
        #expect(missing.status != 0 && missing.output.contains("404"), "\(missing.output)")
    }

    @Test(arguments: Browser.Kind.allCases)
    func theOfferingsAndExperimentsPagesLoadInEveryBrowser(_ kind: Browser.Kind) async throws {
        let world = try self.world
        try await world.browse("console-offerings-pages", in: kind) { browser in
            try await world.signIn(browser)
            for (route, heading) in [
                ("/offerings", "Offerings"), ("/offerings/germany", "Edit germany"), ("/offerings/new", "New offering"),
                ("/experiments", "Experiments"), ("/experiments/club_first_de", "Experiment club_first_de"),
            ] {
                try await world.go(browser, route)
                try await world.waitForPage(browser, heading)
                let alerts = try await browser.execute(
                    "return [...document.querySelectorAll('#view [role=alert]')].map(e => e.textContent.trim()).join('')"
                )
                #expect((alerts as? String ?? "").isEmpty, "\(route): \(String(describing: alerts))")
            }
            // The germany paywall has German texts only: every locale gets them.
            try await world.go(browser, "/offerings/germany")
            _ = try await browser.text(of: "#paywall-preview .paywall-title") { $0 == "Ein Jahr im Garten" }
        }
    }

    /// Chromium only: Firefox's window is never narrower than 500 pixels, wider than a phone.
    @Test func theOfferingsAndExperimentsPagesFitAPhone() async throws {
        let world = try self.world
        try await world.browse("console-offerings-phone", width: 390, height: 844) { browser in
            try await world.signIn(browser)
            for route in ["/offerings", "/offerings/standard", "/experiments", "/experiments/club_first_de"] {
                try await world.go(browser, route)
                let layout =
                    try await browser.execute(
                        """
                        const root = document.documentElement;
                        const outside = [...document.querySelectorAll('#view *')]
                          .filter(e => !e.parentElement.closest('.table-wrap'));
                        const widest = Math.max(...outside.map(e => e.getBoundingClientRect().right));
                        return [window.innerWidth, root.scrollWidth, root.clientWidth, Math.ceil(widest)];
                        """) as? [Int] ?? []
                #expect(layout.count == 4 && layout[0] <= 420, "\(route): \(layout)")
                #expect(layout.count == 4 && layout[1] <= layout[2], "\(route) does not scroll sideways: \(layout)")
                #expect(layout.count == 4 && layout[3] <= layout[2], "\(route): nothing sticks out: \(layout)")
            }
        }
    }

    @Test func aViewerReadsOfferingsAndExperimentsWithoutTheControlsThatChangeThem() async throws {
        let world = try self.world
        let email = "viewer-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        let (status, body) = try await world.api(.POST, "/v1/admin/users", json: ["email": email, "role": "viewer"])
        #expect(status == 201)
        let token = try #require((body as? [String: Any])?["invitation_token"] as? String)
        let password = "a long enough viewer password"
        let (accepted, _) = try await world.api(
            .POST, "/console/api/invitation", json: ["token": token, "password": password])
        #expect(accepted == 204)
        try await world.browse("console-offerings-viewer") { browser in
            try await browser.element("#team-sign-in-app").type(world.appID)
            try await browser.element("#team-sign-in-email").type(email)
            try await browser.element("#team-sign-in-password").type(password)
            try await browser.element("#team-sign-in-submit").click()
            _ = try await browser.element("#who", containing: "(viewer)")
            try await world.go(browser, "/offerings")
            _ = try await browser.element("tr[data-offering=standard]")
            #expect(try await browser.elements("#new-offering, #save-rules, .rule-form").isEmpty)
            try await world.go(browser, "/offerings/standard")
            _ = try await browser.text(of: "#paywall-preview .paywall-title") { !$0.isEmpty }
            #expect(try await browser.elements("#check-offering, #save-offering, #add-package").isEmpty)
            try await world.go(browser, "/experiments/club_first_de")
            _ = try await browser.element("#experiment-state", containing: "running")
            #expect(try await browser.elements("#start-experiment, #stop-experiment").isEmpty)
            try await world.go(browser, "/experiments")
            #expect(try await browser.elements(".experiment-form").isEmpty)
        }
    }
}
