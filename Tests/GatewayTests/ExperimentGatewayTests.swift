import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import ShopkeeperCore
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Experiments through the gateway: the secret key creates and starts one, the public key's offerings answers serve
/// each customer the variant ``ExperimentAssignment`` gives the customer's canonical id (every alias alike), name it,
/// and record the customer's first exposure once however many answers race; no cache serves one customer's variant
/// to another.
@Suite struct ExperimentGatewayTests {
    /// An app with products, offerings `standard` (default) and `annual`, and a draft experiment `price` comparing
    /// them 1:3 over every request.
    static func seed(_ gateway: GatewayHarness) async throws -> GatewayHarness.TestApp {
        let app = try await gateway.createApp("Experiments")
        #expect(try await gateway.importCatalog([product("club"), product("year")], for: app).status == .ok)
        let document = OfferingsDocument(offerings: [
            Offering(
                offeringID: "standard", isDefault: true,
                packages: [OfferingPackage(packageID: "$monthly", productID: "club")]),
            Offering(offeringID: "annual", packages: [OfferingPackage(packageID: "$annual", productID: "year")]),
        ])
        let written = try await gateway.send(
            .put, "/v1/admin/offerings", bearer: app.secretKey.key, json: try TestJSON.encode(document))
        #expect(written.status == .ok, "\(written.text)")
        return app
    }

    static let experiment = Experiment(
        experimentID: "price", name: "Monthly or annual first",
        variants: [
            ExperimentVariant(key: "a", offeringID: "standard", weight: 1),
            ExperimentVariant(key: "b", offeringID: "annual", weight: 3),
        ])

    static func offerings(_ user: String, app: GatewayHarness.TestApp, in gateway: GatewayHarness) async throws
        -> (view: OfferingsView, response: TestResponse)
    {
        let response = try await gateway.send(
            .get, "/v1/offerings?app_user_id=\(AppUserID.segment(user))&platform=app_store&app_version=1.0",
            bearer: app.publicKey.key)
        #expect(response.status == .ok, "\(response.text)")
        return (try response.decode(OfferingsView.self), response)
    }

    static func exposures(appID: String) async throws -> [String: String] {
        try await TestDatabase.withClient { client in
            var found: [String: String] = [:]
            let rows = try await client.query(
                """
                SELECT customer_key, variant_key FROM catalog.experiment_exposures WHERE app_id = \(appID)
                """)
            for try await (key, variant) in rows.decode((String, String).self) { found[key] = variant }
            return found
        }
    }

    @Test func aRunningExperimentServesEachCustomerItsVariantOnceExposed() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await Self.seed(gateway)
            let secret = app.secretKey.key
            let appID = app.info.appID
            let created = try await gateway.send(
                .post, "/v1/admin/experiments", bearer: secret, json: try TestJSON.encode(Self.experiment))
            #expect(created.status == .created, "\(created.text)")
            #expect(try created.violations(.post, "/v1/admin/experiments") == [])
            // A draft serves nothing.
            let draft = try await Self.offerings("carol", app: app, in: gateway)
            #expect(draft.view.experiment == nil && draft.view.currentOfferingID == "standard")

            let started = try await gateway.send(.post, "/v1/admin/experiments/price/start", bearer: secret)
            #expect(started.status == .ok, "\(started.text)")
            #expect(try started.violations(.post, "/v1/admin/experiments/{experiment_id}/start") == [])
            #expect(try started.decode(Experiment.self).state == .running)
            // Its weights are fixed now.
            var changed = Self.experiment
            changed.variants[0].weight = 5
            let refused = try await gateway.send(
                .put, "/v1/admin/experiments/price", bearer: secret, json: try TestJSON.encode(changed))
            #expect(refused.status == .conflict)
            #expect(try code(refused) == "experiment_running")
            #expect(try refused.violations(.put, "/v1/admin/experiments/{experiment_id}") == [])

            // Customers the entitlements service does not know yet are keyed by the id they came with.
            // At least 24 visitors, and as many more as it takes to see both variants: the split is 1:3 and the app id
            // is new each run, so 24 alone miss `a` about once in a thousand runs.
            var seen: Set<String> = []
            var visitors = 0
            while visitors < 24 || (seen.count < 2 && visitors < 400) {
                let index = visitors
                visitors += 1
                let user = "visitor_\(index)"
                let (view, response) = try await Self.offerings(user, app: app, in: gateway)
                #expect(try response.violations(.get, "/v1/offerings") == [])
                let expected = Self.experiment.variants[
                    ExperimentAssignment.variant(app: appID, experiment: "price", customer: user, weights: [1, 3])]
                #expect(view.experiment == ExperimentPick(id: "price", variant: expected.key))
                #expect(view.currentOfferingID == expected.offeringID)
                seen.insert(expected.key)
            }
            #expect(seen == ["a", "b"])
            // One variant's entity tag is not another's: a customer of b never gets a's answer as "not modified".
            let visitorA = try #require(
                (0..<visitors).first {
                    ExperimentAssignment.variant(
                        app: appID, experiment: "price", customer: "visitor_\($0)", weights: [1, 3])
                        == 0
                })
            let visitorB = try #require(
                (0..<visitors).first {
                    ExperimentAssignment.variant(
                        app: appID, experiment: "price", customer: "visitor_\($0)", weights: [1, 3])
                        == 1
                })
            let etagA = try #require(
                try await Self.offerings("visitor_\(visitorA)", app: app, in: gateway).response.headers[.eTag])
            let revalidated = try await gateway.send(
                .get, "/v1/offerings?app_user_id=visitor_\(visitorB)&platform=app_store&app_version=1.0",
                bearer: app.publicKey.key, headers: [.ifNoneMatch: etagA])
            #expect(revalidated.status == .ok)
            #expect(try revalidated.decode(OfferingsView.self).experiment?.variant == "b")

            // Every alias of one customer gets the variant of the id the customer was first known by, and one
            // exposure; an id first seen before its customer existed keeps its variant once it is one.
            for index in 0..<6 {
                let user = "member_\(index)"
                let before = try await Self.offerings(user, app: app, in: gateway).view.experiment
                let linked = try await gateway.send(
                    .post, "/v1/customers/\(user)/aliases", bearer: secret,
                    json: try TestJSON.encode(["alias": "phone_\(index)"]))
                #expect(linked.status.code / 100 == 2, "\(linked.text)")
                let expected = Self.experiment.variants[
                    ExperimentAssignment.variant(app: appID, experiment: "price", customer: user, weights: [1, 3])]
                #expect(before?.variant == expected.key)
                for alias in [user, "phone_\(index)"] {
                    let view = try await Self.offerings(alias, app: app, in: gateway).view
                    #expect(view.experiment?.variant == expected.key, "\(alias)")
                }
                let exposures = try await Self.exposures(appID: appID)
                #expect(exposures[user] == expected.key && exposures["phone_\(index)"] == nil)
            }

            // A hundred answers racing for one new customer record one exposure.
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await Self.offerings("racer", app: app, in: gateway).view.experiment?.variant }
                }
                var variants: Set<String?> = []
                for try await variant in group { variants.insert(variant) }
                #expect(variants.count == 1)
            }
            // A burst of new customers at once (their exposures share writes): each is recorded, with its variant,
            // before its answer leaves.
            let burst = try await withThrowingTaskGroup(of: (String, String?).self) { group in
                for index in 0..<150 {
                    group.addTask {
                        let user = "burst_\(index)"
                        return (user, try await Self.offerings(user, app: app, in: gateway).view.experiment?.variant)
                    }
                }
                var served: [String: String?] = [:]
                for try await (user, variant) in group { served[user] = variant }
                return served
            }
            let exposures = try await Self.exposures(appID: appID)
            #expect(exposures.keys.filter { $0 == "racer" }.count == 1)
            #expect(exposures.count == visitors + 6 + 1 + 150)
            for (user, variant) in burst {
                let expected = Self.experiment.variants[
                    ExperimentAssignment.variant(app: appID, experiment: "price", customer: user, weights: [1, 3])]
                #expect(variant == expected.key && exposures[user] == expected.key, "\(user)")
            }

            // Stopped: for good, and the customers get what targeting gives them again.
            let stopped = try await gateway.send(.post, "/v1/admin/experiments/price/stop", bearer: secret)
            #expect(stopped.status == .ok, "\(stopped.text)")
            #expect(try stopped.decode(Experiment.self).state == .stopped)
            let restart = try await gateway.send(.post, "/v1/admin/experiments/price/start", bearer: secret)
            #expect(restart.status == .conflict)
            #expect(try code(restart) == "experiment_stopped")
            // Within the catalog's refresh interval the answer is shared again.
            let after = try await Self.offerings("visitor_1", app: app, in: gateway)
            #expect(after.view.experiment == nil && after.view.currentOfferingID == "standard")
        }
    }

    /// End to end through the gateway with verified purchases: only purchases after a customer's first exposure
    /// count, in the customer's variant; the results come as JSON and CSV.
    @Test func resultsCountPurchasesAfterTheFirstExposureOnly() async throws {
        try await SignedPurchaseWorld.run { world in
            let gateway = world.gateway
            let app = world.app
            let (secret, appID) = (app.secretKey.key, app.info.appID)
            let document = OfferingsDocument(offerings: [
                Offering(
                    offeringID: "standard", isDefault: true,
                    packages: [OfferingPackage(packageID: "$pro", productID: "pro")]),
                Offering(offeringID: "bundle", packages: [OfferingPackage(packageID: "$bag", productID: "fertilizer")]),
            ])
            let written = try await gateway.send(
                .put, "/v1/admin/offerings", bearer: secret, json: try TestJSON.encode(document))
            #expect(written.status == .ok, "\(written.text)")
            var experiment = Self.experiment
            experiment.variants = [
                ExperimentVariant(key: "a", offeringID: "standard", weight: 1),
                ExperimentVariant(key: "b", offeringID: "bundle", weight: 1),
            ]
            #expect(
                try await gateway.send(
                    .post, "/v1/admin/experiments", bearer: secret, json: try TestJSON.encode(experiment)
                )
                .status == .created)
            #expect(try await gateway.send(.post, "/v1/admin/experiments/price/start", bearer: secret).status == .ok)

            // Two customers of each variant, by the assignment the server uses.
            var members: [String: [String]] = [:]
            var index = 0
            while members["a", default: []].count < 2 || members["b", default: []].count < 2 {
                let user = "shopper_\(index)"
                let key = experiment.variants[
                    ExperimentAssignment.variant(app: appID, experiment: "price", customer: user, weights: [1, 1])
                ].key
                if members[key, default: []].count < 2 { members[key, default: []].append(user) }
                index += 1
            }
            for user in members.values.joined() {
                _ = try await Self.offerings(user, app: app, in: gateway)
            }
            // Their exposures were an hour ago, before the purchases below (signed a minute ago).
            try await TestDatabase.withClient { client in
                try await client.run(
                    """
                    UPDATE catalog.experiment_exposures SET first_exposed_at = first_exposed_at - interval '1 hour'
                    WHERE app_id = \(appID)
                    """,
                    logger: Logger(label: "test"))
            }
            let buyers = [members["a"]![0], members["b"]![0], members["b"]![1]]
            for user in buyers {
                let bought = try await world.purchase(
                    user, jws: try world.signedTransaction(), bearer: app.publicKey.key, token: nil)
                #expect(bought.status == .ok, "\(bought.text)")
            }
            // A customer who bought before the first exposure is exposed, not converted.
            let early = try await world.purchase(
                "early_bird", jws: try world.signedTransaction(), bearer: app.publicKey.key, token: nil)
            #expect(early.status == .ok, "\(early.text)")
            let earlyVariant = try #require(
                try await Self.offerings("early_bird", app: app, in: gateway).view.experiment)

            let report = try await gateway.send(.get, "/v1/admin/reports/experiments/price", bearer: secret)
            #expect(report.status == .ok, "\(report.text)")
            #expect(try report.violations(.get, "/v1/admin/reports/experiments/{experiment_id}") == [])
            let object = try TestJSON.object(report.body.readableBytesView)
            let variants = try #require(object["variants"] as? [[String: Any]])
            #expect(variants.map { $0["key"] as? String } == ["a", "b"])
            for variant in variants {
                let key = try #require(variant["key"] as? String)
                let late = earlyVariant.variant == key ? 1 : 0
                let paying = key == "a" ? 1 : 2
                #expect(variant["customers_exposed"] as? Int == 2 + late, "\(key)")
                #expect(variant["purchases"] as? Int == paying, "\(key)")
                #expect(variant["paying_customers"] as? Int == paying, "\(key)")
                #expect(variant["refunds"] as? Int == 0)
                let revenue = try #require(variant["revenue"] as? [[String: Any]])
                #expect(revenue.first?["currency"] as? String == "USD")
                let total = try #require(revenue.first?["total"] as? Double)
                #expect(abs(total - 1.99 * Double(paying)) < 1e-9, "\(key)")
            }

            let csv = try await gateway.send(
                .get, "/v1/admin/reports/experiments/price", bearer: secret, headers: [.accept: "text/csv"])
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.text.hasPrefix("variant,offering_id,weight,customers_exposed"))
            let byQuery = try await gateway.send(
                .get, "/v1/admin/reports/experiments/price?format=csv", bearer: secret)
            #expect(byQuery.text == csv.text)
            let badFormat = try await gateway.send(
                .get, "/v1/admin/reports/experiments/price?format=xml", bearer: secret)
            #expect(badFormat.status == .badRequest)
            let missing = try await gateway.send(.get, "/v1/admin/reports/experiments/nope", bearer: secret)
            #expect(missing.status == .notFound)
            #expect(try missing.violations(.get, "/v1/admin/reports/experiments/{experiment_id}") == [])
        }
    }
}
