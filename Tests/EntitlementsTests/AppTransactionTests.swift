import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("App transactions: products included in a variant or grandfathered")
struct AppTransactionTests {
    /// The fixtures, a product included in the paid `full` variant and one grandfathered below 2.0.
    static let products: [Product] =
        EntitlementsFixtures.products + [
            Product(
                productID: "tulips", type: .nonConsumable, storeProductIDs: [.appStore: "com.test.tulips"],
                includedInVariants: ["full"], entitlements: ["tulips"],
                localizations: ["en": ProductLocalization(name: "Tulips")]),
            Product(
                productID: "classic_garden", type: .nonConsumable, storeProductIDs: [.appStore: "com.test.classic"],
                grandfatheredBelowVersion: AppVersion("2.0"), entitlements: ["classic"],
                localizations: ["en": ProductLocalization(name: "Classic garden")]),
        ]

    static func present(
        _ id: String, by user: String, variant: String? = nil, originalVersion: String? = "2.5",
        environment: StoreEnvironment = .sandbox, source: ApplySource = .purchase, harness: EntitlementsHarness,
        atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        let request = AppTransactionApplyRequest(
            appUserID: user, source: source,
            appTransaction: AppTransactionFacts(
                appTransactionID: id, environment: environment, variant: variant,
                originalApplicationVersion: originalVersion,
                originalPurchaseDate: Date(timeIntervalSince1970: 1_600_000_000)))
        return try await harness.send(
            .post, "/internal/v1/app-transactions", json: try TestJSON.encode(request), atOnce: atOnce)
    }

    static func answer(_ response: any HTTPAnswer) throws -> AppTransactionApplyResponse {
        guard response.status == .ok else { throw HarnessError("answered \(response.status): \(response.text)") }
        return try TestJSON.decode(AppTransactionApplyResponse.self, response.body.readableBytesView)
    }

    @Test("The paid variant's app transaction owns the products included in it")
    func paidVariantOwnsIncludedProducts() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let answer = try Self.answer(
                try await Self.present("app-1", by: "full-user", variant: "full", harness: harness))
            #expect(answer.outcome == .recorded)
            #expect(answer.customer.productGrants.map(\.productID) == ["tulips"])
            #expect(answer.customer.productGrants.first?.source == "included")
            #expect(answer.customer.entitlements["tulips"]?.source == "included")
            #expect(answer.customer.entitlements["tulips"]?.active == true)
            let info = try await harness.info("full-user")
            #expect(info.productGrants.map(\.source) == ["included"])

            // The free variant's app transaction proves nothing here.
            let free = try Self.answer(try await Self.present("app-2", by: "free-user", harness: harness))
            #expect(free.customer.productGrants.isEmpty)
        }
    }

    @Test(
        "An original version below the catalog's grandfathers the product",
        arguments: [
            ("1.5", true), ("1.9.9", true), ("1", true), ("2.0", false), ("2", false), ("2.0.0", false),
            ("2.1", false), ("10", false), ("1.0b3", false),
        ])
    func grandfathering(originalVersion: String, owned: Bool) async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let answer = try Self.answer(
                try await Self.present(
                    "app-\(originalVersion)", by: "early", originalVersion: originalVersion, harness: harness))
            #expect(answer.customer.productGrants.map(\.productID) == (owned ? ["classic_garden"] : []))
            #expect((answer.customer.entitlements["classic"]?.source == "grandfathered") == owned)
        }
    }

    @Test("A catalog change reaches customers whose app transactions are already recorded")
    func catalogChangesApplyToRecordedAppTransactions() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            _ = try Self.answer(try await Self.present("app-1", by: "early", originalVersion: "2.5", harness: harness))
            #expect(try await harness.info("early").productGrants.isEmpty)
            var products = Self.products
            products[products.count - 1].grandfatheredBelowVersion = AppVersion("3.0")
            #expect(try await harness.importCatalog(products).status == .ok)
            // Within the customer cache's lifetime (SHOPKEEPER_CUSTOMER_CACHE_MS), as for purchases' entitlements.
            try await eventually("the grandfathered product shows") {
                try await harness.info("early").productGrants.map(\.productID) == ["classic_garden"]
            }
        }
    }

    @Test("Presented again by its customer it changes nothing; at once by many, it is recorded once")
    func presentedAgainAndAtOnce() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            let outcomes = try await withThrowingTaskGroup(of: AppTransactionOutcome.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try Self.answer(
                            try await Self.present(
                                "app-1", by: "racer", variant: "full", harness: harness, atOnce: true)
                        ).outcome
                    }
                }
                return try await group.reduce(into: [AppTransactionOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .recorded }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyRecorded }.count == 19)
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.app_transactions WHERE app_id = \(harness.appID)") == 1)
        }
    }

    @Test("Another customer takes it by the transfer policy, and a purchase request never moves it back")
    func transfers() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            _ = try Self.answer(try await Self.present("app-1", by: "first", variant: "full", harness: harness))
            let moved = try Self.answer(
                try await Self.present("app-1", by: "second", variant: "full", harness: harness))
            #expect(moved.outcome == .transferred)
            #expect(moved.customer.productGrants.map(\.productID) == ["tulips"])
            #expect(try await harness.info("first").productGrants.isEmpty)

            let back = try await Self.present("app-1", by: "first", variant: "full", harness: harness)
            #expect(back.status == .conflict)
            #expect(back.problemCode == "already_owned_by_other_customer")
            #expect(back.text.contains("only a restore moves it back"), "\(back.text)")
            let restored = try Self.answer(
                try await Self.present("app-1", by: "first", variant: "full", source: .restore, harness: harness))
            #expect(restored.outcome == .transferred)
            #expect(try await harness.info("second").productGrants.isEmpty)

            #expect(try await harness.putSettings(#"{"transfer_policy": "keep_with_original"}"#).status == .ok)
            let kept = try await Self.present("app-1", by: "third", variant: "full", harness: harness)
            #expect(kept.status == .conflict)
            #expect(kept.problemCode == "already_owned_by_other_customer")
            #expect(try await harness.info("first").productGrants.map(\.productID) == ["tulips"])
        }
    }

    @Test("An app that refuses sandbox purchases refuses sandbox app transactions, and writes nothing")
    func sandboxRefused() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            #expect(try await harness.putSettings(#"{"accept_sandbox": false}"#).status == .ok)
            let refused = try await Self.present("app-1", by: "tester", variant: "full", harness: harness)
            #expect(refused.status == .forbidden)
            #expect(refused.problemCode == "sandbox_not_accepted")
            #expect(
                try await harness.count(
                    "SELECT count(*) FROM entitlements.app_transactions WHERE app_id = \(harness.appID)") == 0)
            let production = try Self.answer(
                try await Self.present(
                    "app-2", by: "buyer", variant: "full", environment: .production, harness: harness))
            #expect(production.customer.productGrants.map(\.productID) == ["tulips"])
        }
    }

    @Test("The public key cannot fold in a customer whose app transaction proves a paid app; a merge moves it")
    func merges() async throws {
        try await EntitlementsHarness.run(products: Self.products) { harness in
            _ = try Self.answer(try await Self.present("app-1", by: "payer", variant: "full", harness: harness))
            // Even as a log-in links, from an anonymous id.
            let mallory = "anon_" + UUID().uuidString.lowercased()
            let refused = try await harness.link("payer", to: mallory, kind: .public)
            #expect(refused.status == .forbidden)
            #expect(refused.problemCode == "merge_needs_secret_key")
            #expect(try await harness.info(mallory).productGrants.isEmpty)

            let merged = try await harness.link("payer", to: "account-7")
            #expect(merged.status == .ok, "\(merged.text)")
            #expect(try await harness.info("account-7").productGrants.map(\.productID) == ["tulips"])
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.app_transactions t
                    JOIN entitlements.aliases a ON a.customer_id = t.customer_id
                    WHERE t.app_id = \(harness.appID) AND a.app_user_id = 'account-7'
                    """) == 1)
        }
    }
}
