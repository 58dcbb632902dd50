import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Catalog

/// Experiments written through the catalog's admin API into a real PostgreSQL: drafts are checked and edited, a
/// running experiment's variants are fixed, a stopped one stays stopped, dry runs change nothing, and bad input is a
/// 4xx problem with pointers, never a 500.
@Suite struct ExperimentAdminTests {
    static func seed(_ harness: CatalogHarness) async throws {
        #expect(try await harness.importCatalog([Fixtures.product("club"), Fixtures.product("year")]).status == .ok)
        let document = try OfferingAdminTests.document(
            [
                OfferingAdminTests.offering("standard", default: true, products: ["club"]),
                OfferingAdminTests.offering("annual", products: ["year"]),
            ],
            rules: [TargetingRule(ruleID: "de", offeringID: "annual", countries: ["DE"])])
        #expect(try await harness.send(.put, "/v1/admin/offerings", json: document).status == .ok)
    }

    static func experiment(_ id: String = "price", audience: ExperimentAudience? = nil) -> Experiment {
        Experiment(
            experimentID: id, name: "Monthly or annual first", audience: audience,
            variants: [
                ExperimentVariant(key: "a", offeringID: "standard", weight: 50),
                ExperimentVariant(key: "b", offeringID: "annual", weight: 50),
            ])
    }

    @Test func aDraftIsEditedThenStartedThenStoppedForGood() async throws {
        try await CatalogHarness.run { harness in
            try await Self.seed(harness)
            let body = try TestJSON.encode(Self.experiment(audience: ExperimentAudience(ruleID: "de")))
            let preview = try await harness.send(.post, "/v1/admin/experiments?dry_run=true", json: body)
            #expect(preview.status == .created, "\(String(buffer: preview.body))")
            #expect(try await harness.send(.get, "/v1/admin/experiments/price").status == .notFound)

            let created = try await harness.send(.post, "/v1/admin/experiments", json: body)
            #expect(created.status == .created)
            let draft = try TestJSON.decode(Experiment.self, created.body.readableBytesView)
            #expect(draft.state == .draft && draft.startedAt == nil && draft.audience?.ruleID == "de")
            let again = try await harness.send(.post, "/v1/admin/experiments", json: body)
            #expect(again.status == .conflict)
            try again.expectProblem(code: "experiment_exists")

            // A draft may change.
            var edited = Self.experiment(
                audience: ExperimentAudience(
                    conditions: .init(rule: TargetingRule(ruleID: "", offeringID: "", platforms: [.appStore]))))
            edited.variants.append(ExperimentVariant(key: "c", offeringID: "annual", weight: 20))
            let put = try await harness.send(.put, "/v1/admin/experiments/price", json: try TestJSON.encode(edited))
            #expect(put.status == .ok, "\(String(buffer: put.body))")
            #expect(
                try TestJSON.decode(Experiment.self, put.body.readableBytesView).variants.map(\.weight) == [50, 50, 20])

            let dryStart = try await harness.send(.post, "/v1/admin/experiments/price/start?dry_run=true")
            #expect(dryStart.status == .ok)
            #expect(try TestJSON.decode(Experiment.self, dryStart.body.readableBytesView).state == .running)
            let stillDraft = try await harness.send(.get, "/v1/admin/experiments/price")
            #expect(try TestJSON.decode(Experiment.self, stillDraft.body.readableBytesView).state == .draft)
            let notRunning = try await harness.send(.post, "/v1/admin/experiments/price/stop")
            #expect(notRunning.status == .conflict)
            try notRunning.expectProblem(code: "experiment_not_running")

            let started = try await harness.send(.post, "/v1/admin/experiments/price/start")
            let running = try TestJSON.decode(Experiment.self, started.body.readableBytesView)
            #expect(running.state == .running && running.startedAt != nil)
            // A retried start answers alike.
            let retried = try await harness.send(.post, "/v1/admin/experiments/price/start")
            #expect(try TestJSON.decode(Experiment.self, retried.body.readableBytesView) == running)
            // Weights and variants are fixed while it runs.
            edited.variants[0].weight = 70
            let fixed = try await harness.send(.put, "/v1/admin/experiments/price", json: try TestJSON.encode(edited))
            #expect(fixed.status == .conflict)
            try fixed.expectProblem(code: "experiment_running")
            // Its offerings cannot go away.
            let deleted = try await harness.send(.delete, "/v1/admin/offerings/annual")
            #expect(deleted.status == .conflict)

            let stopped = try await harness.send(.post, "/v1/admin/experiments/price/stop")
            let over = try TestJSON.decode(Experiment.self, stopped.body.readableBytesView)
            #expect(over.state == .stopped && over.stoppedAt != nil && over.startedAt == running.startedAt)
            let restart = try await harness.send(.post, "/v1/admin/experiments/price/start")
            #expect(restart.status == .conflict)
            try restart.expectProblem(code: "experiment_stopped")
            let editStopped = try await harness.send(
                .put, "/v1/admin/experiments/price", json: try TestJSON.encode(edited))
            try editStopped.expectProblem(code: "experiment_stopped")

            #expect(
                try await harness.send(
                    .post, "/v1/admin/experiments", json: try TestJSON.encode(Self.experiment("next"))
                ).status == .created)
            let list = try await harness.send(.get, "/v1/admin/experiments")
            let listed = try TestJSON.decode(ExperimentList.self, list.body.readableBytesView)
            #expect(Set(listed.experiments.map(\.experimentID)) == ["price", "next"])
            #expect(try await harness.send(.post, "/v1/admin/experiments/nope/start").status == .notFound)
            // The public key may not touch them.
            #expect(try await harness.send(.get, "/v1/admin/experiments", kind: .public).status == .forbidden)
        }
    }

    @Test func badExperimentsAreRefusedWithEveryPointer() async throws {
        try await CatalogHarness.run { harness in
            try await Self.seed(harness)
            var bad = Self.experiment("bad id")
            bad.name = ""
            bad.variants = [
                ExperimentVariant(key: "A", offeringID: "standard", weight: 0),
                ExperimentVariant(key: "b", offeringID: "missing", weight: 10_001),
                ExperimentVariant(key: "b", offeringID: "annual", weight: 1),
            ]
            bad.audience = ExperimentAudience(
                conditions: .init(rule: TargetingRule(ruleID: "", offeringID: "", countries: ["Germany"])))
            let refused = try await harness.send(.post, "/v1/admin/experiments", json: try TestJSON.encode(bad))
            #expect(refused.status == .unprocessableContent)
            try refused.expectProblem(code: "validation_failed")
            #expect(
                Set(try refused.problemPointers()) == [
                    "/experiment_id", "/name", "/variants/0/key", "/variants/0/weight", "/variants/1/offering_id",
                    "/variants/1/weight", "/variants/2/key", "/audience/conditions/countries/0",
                ])

            var lonely = Self.experiment()
            lonely.variants.removeLast()
            lonely.audience = ExperimentAudience(ruleID: "nope")
            let one = try await harness.send(.post, "/v1/admin/experiments", json: try TestJSON.encode(lonely))
            #expect(Set(try one.problemPointers()) == ["/variants", "/audience/rule_id"])

            let both = Data(
                #"{"experiment_id":"x","name":"x","audience":{"rule_id":"de","conditions":{}},"variants":[{"key":"a","offering_id":"standard","weight":1},{"key":"b","offering_id":"annual","weight":1}]}"#
                    .utf8)
            let twice = try await harness.send(.post, "/v1/admin/experiments", json: both)
            #expect(try twice.problemPointers() == ["/audience"])
            let unknown = Data(#"{"experiment_id":"x","name":"x","variants":[],"colour":1}"#.utf8)
            #expect(try await harness.send(.post, "/v1/admin/experiments", json: unknown).status.code / 100 == 4)
            let mismatch = try await harness.send(
                .put, "/v1/admin/experiments/other", json: try TestJSON.encode(Self.experiment()))
            #expect(mismatch.status.code / 100 == 4)
        }
    }
}
