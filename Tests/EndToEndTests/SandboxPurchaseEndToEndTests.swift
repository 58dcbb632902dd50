import AsyncHTTPClient
import Foundation
import NIOCore
import ShopkeeperTestSupport
import Testing

/// The README's first sandbox purchase, with the real executables: seed the demo shop, connect it to the
/// sandbox store with the CLI, buy with the CLI, and send each proof through the gateway.
@Suite(.serialized) struct SandboxPurchaseEndToEndTests {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    @Test func aSandboxPurchaseOfEachKindThroughTheGateway() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: Self.operatorKey,
                verifierEnvironment: sandbox.storeEnvironment(state: state))
            let gateway = stack.gateway

            let envFile = state.appendingPathComponent("local.env")
            let shop = try SeededDemoShop.seed(
                gatewayURL: gateway.baseURL, operatorKey: Self.operatorKey, sandboxURL: sandbox.baseURL,
                envFile: envFile)
            let (publicKey, cliEnvironment) = (shop.publicKey, shop.cliEnvironment)
            #expect(!publicKey.isEmpty)
            #expect(!shop.connectOutput.contains("PRIVATE KEY"))

            func buy(_ arguments: [String]) throws -> [String: Any] {
                let bought = try runCLI(["sandbox", "buy"] + arguments, environment: cliEnvironment)
                #expect(bought.status == 0, "\(bought.output)")
                return (try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any]) ?? [:]
            }
            func purchase(_ body: [String: Any], path: String = "/v1/purchases") async throws -> (Int, [String: Any]) {
                let answer = try await StoreWorld.send(
                    .POST, gateway.baseURL + path, body: body, headers: [("authorization", "Bearer \(publicKey)")])
                return (answer.status, answer.json)
            }

            let apple = try buy(["--product", "com.shopkeeper.demo.garden.extra_garden", "--user", "alice"])
            let transactionID = try #require(apple["transaction_id"] as? String)
            for proof in ["signed_transaction", "receipt_data"] {
                let (status, answer) = try await purchase(["app_user_id": "alice", proof: apple[proof] ?? ""])
                #expect(status == 200, "\(proof): \(answer)")
                let transactions = answer["transactions"] as? [[String: Any]] ?? []
                #expect(transactions.contains { $0["transaction_id"] as? String == transactionID }, "\(proof)")
                #expect(transactions.allSatisfy { $0["environment"] as? String == "sandbox" })
                // Granted before the answer: the app may finish the transaction now.
                let customer = answer["customer"] as? [String: Any] ?? [:]
                let grants = customer["entitlements"] as? [String: [String: Any]] ?? [:]
                #expect(grants["extra_garden"]?["active"] as? Bool == true, "\(proof): \(customer)")
            }

            let google = try buy(["--store", "google", "--product", "fertilizer_10", "--user", "bob"])
            let (status, answer) = try await purchase([
                "app_user_id": "bob", "purchase_token": google["purchase_token"] ?? "", "product_id": "fertilizer_10",
            ])
            #expect(status == 200, "\(answer)")
            #expect((answer["transactions"] as? [[String: Any]])?.first?["store"] as? String == "play_store")
            let balances = (answer["customer"] as? [String: Any])?["consumable_balances"] as? [String: Int]
            #expect(balances == ["fertilizer_10": 10], "\(answer)")

            // App transactions: the paid edition's owns what is included in it; one from before 2.0 is grandfathered.
            func appTransaction(bundle: String, originalVersion: String) async throws -> String {
                var request = HTTPClientRequest(url: sandbox.baseURL + "/sandbox/apple/app-transactions")
                request.method = .POST
                request.headers.add(name: "content-type", value: "application/json")
                let body: [String: Any] = [
                    "bundle_id": bundle, "app_account_token": UUID().uuidString.lowercased(),
                    "original_application_version": originalVersion,
                ]
                request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                let json = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]
                return try #require(json?["signed_app_transaction"] as? String, "\(String(describing: json))")
            }
            func owned(_ answer: [String: Any]) -> [String: String] {
                let grants = (answer["customer"] as? [String: Any])?["product_grants"] as? [[String: Any]] ?? []
                return Dictionary(
                    grants.compactMap { grant in
                        (grant["product_id"] as? String).map { ($0, grant["source"] as? String ?? "") }
                    }, uniquingKeysWith: { first, _ in first })
            }
            let full = try await appTransaction(bundle: "com.shopkeeper.demo.garden.full", originalVersion: "3.1")
            let (fullStatus, fullAnswer) = try await purchase(["app_user_id": "carol", "signed_app_transaction": full])
            #expect(fullStatus == 200, "\(fullAnswer)")
            #expect(owned(fullAnswer) == ["seeds_tulip": "included"], "\(fullAnswer)")
            #expect((fullAnswer["app_transaction"] as? [String: Any])?["variant"] as? String == "full")
            #expect((fullAnswer["app_transaction"] as? [String: Any])?["outcome"] as? String == "recorded")
            let again = try await purchase(["app_user_id": "carol", "signed_app_transaction": full])
            #expect((again.1["app_transaction"] as? [String: Any])?["outcome"] as? String == "already_recorded")

            let early = try await appTransaction(bundle: "com.shopkeeper.demo.garden", originalVersion: "1.0")
            let (earlyStatus, earlyAnswer) = try await purchase([
                "app_user_id": "dave", "signed_app_transaction": early,
            ])
            #expect(earlyStatus == 200, "\(earlyAnswer)")
            #expect(owned(earlyAnswer) == ["extra_garden": "grandfathered"], "\(earlyAnswer)")
            let grants = (earlyAnswer["customer"] as? [String: Any])?["entitlements"] as? [String: [String: Any]]
            #expect(grants?["extra_garden"]?["source"] as? String == "grandfathered")

            let recent = try await appTransaction(bundle: "com.shopkeeper.demo.garden", originalVersion: "2.0")
            let (_, recentAnswer) = try await purchase(["app_user_id": "erin", "signed_app_transaction": recent])
            #expect(owned(recentAnswer).isEmpty, "\(recentAnswer)")

            // Another app's edition is not a variant of this one.
            let stranger = try await appTransaction(bundle: "com.example.other", originalVersion: "1.0")
            let (strangerStatus, strangerAnswer) = try await purchase([
                "app_user_id": "frank", "signed_app_transaction": stranger,
            ])
            #expect(strangerStatus == 422, "\(strangerAnswer)")
            #expect(strangerAnswer["code"] as? String == "wrong_bundle_id")

            // A restore carries the app transaction with the other proofs: presented first, so the answer's customer
            // owns both what it proves and what the transactions bought.
            let restoredFull = try await appTransaction(
                bundle: "com.shopkeeper.demo.garden.full", originalVersion: "3.0")
            let (restoreStatus, restoreAnswer) = try await purchase(
                ["signed_app_transaction": restoredFull, "signed_transactions": [apple["signed_transaction"] ?? ""]],
                path: "/v1/customers/alice/restore")
            #expect(restoreStatus == 200, "\(restoreAnswer)")
            #expect(owned(restoreAnswer) == ["seeds_tulip": "included"], "\(restoreAnswer)")
            #expect((restoreAnswer["app_transaction"] as? [String: Any])?["outcome"] as? String == "recorded")
            let restoredGrants = (restoreAnswer["customer"] as? [String: Any])?["entitlements"] as? [String: Any]
            #expect(restoredGrants?["extra_garden"] != nil, "\(restoreAnswer)")
            #expect((restoreAnswer["rejected"] as? [Any])?.isEmpty == true, "\(restoreAnswer)")
            // One that does not verify is listed in `rejected`; the rest of the restore still counts.
            let (strangerRestoreStatus, strangerRestore) = try await purchase(
                ["signed_app_transaction": stranger, "signed_transactions": [apple["signed_transaction"] ?? ""]],
                path: "/v1/customers/alice/restore")
            #expect(strangerRestoreStatus == 200, "\(strangerRestore)")
            let rejectedProofs = strangerRestore["rejected"] as? [[String: Any]] ?? []
            #expect(
                rejectedProofs.map { $0["pointer"] as? String } == ["/signed_app_transaction"], "\(strangerRestore)")
            #expect(rejectedProofs.first?["code"] as? String == "wrong_bundle_id")
            #expect(strangerRestore["app_transaction"] == nil)
            // An app transaction alone is a restore too.
            let (aloneStatus, aloneAnswer) = try await purchase(
                ["signed_app_transaction": restoredFull], path: "/v1/customers/alice/restore")
            #expect(aloneStatus == 200, "\(aloneAnswer)")
            #expect((aloneAnswer["app_transaction"] as? [String: Any])?["outcome"] as? String == "already_recorded")
            #expect(owned(aloneAnswer) == ["seeds_tulip": "included"], "\(aloneAnswer)")

            // The sales figures of what was bought, with the CLI: Alice's Apple purchase at the price `sandbox connect`
            // registered for the demo at the sandbox store ($2.99 in the USA; presented twice, one sale), Bob's Google
            // Play one without a price (Play reports none).
            let sales = try runCLI(
                ["report", "sales", "--environment", "sandbox", "--group-by", "store", "--csv"],
                environment: cliEnvironment)
            #expect(sales.status == 0, "\(sales.output)")
            let lines = sales.output.split(whereSeparator: \.isNewline).map(String.init)
            #expect(
                lines == [
                    "store,currency,purchases,renewals,units,revenue_milliunits,refunds,refunded_milliunits,"
                        + "estimated_revenue_milliunits,estimated_refunded_milliunits",
                    "app_store,USD,1,0,1,2990,0,0,0,0", "play_store,,1,0,1,,0,,,",
                ], "\(sales.output)")
            let consumables = try runCLI(
                ["report", "consumables", "--group-by", "product"], environment: cliEnvironment)
            #expect(consumables.status == 0, "\(consumables.output)")
            #expect(consumables.output.contains("fertilizer_10  10      0      0"), "\(consumables.output)")
            // A chart by its name: today's new customers include Alice and Bob.
            let activity = try runCLI(["report", "activity", "--json"], environment: cliEnvironment)
            #expect(activity.status == 0, "\(activity.output)")
            let chart = try JSONSerialization.jsonObject(with: Data(activity.output.utf8)) as? [String: Any]
            let newCustomers = (chart?["totals"] as? [[String: Any]])?.first?["new_customers"] as? Int
            #expect(chart?["report"] as? String == "activity" && (newCustomers ?? 0) >= 2, "\(activity.output)")
            let refused = try runCLI(
                ["report", "sales", "--from", "2026-02-01", "--to", "2026-01-01"], environment: cliEnvironment)
            #expect(refused.status != 0 && refused.output.contains("invalid_query"), "\(refused.output)")

            try await stack.stop()
            try await sandbox.stop()
        }
    }
}
