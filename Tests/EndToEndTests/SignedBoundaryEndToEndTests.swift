import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

/// The README's customer boundary walk with the real executables: the CLI creates a customer token secret and
/// switches the demo app to `signed`, a sandbox purchase through the gateway is refused without a token and goes
/// through with one the CLI mints, and that token reads its own customer only.
@Suite(.serialized) struct SignedBoundaryEndToEndTests {
    static let operatorKey = "op_e2e_operator_key_0123456789"

    @Test func theFirstPurchaseWalkWithACustomerToken() async throws {
        // A database of its own: the demo shop's sandbox transaction ids start where every sandbox's do.
        try await TestDatabase.withFreshDatabase { database in
            try await StoreWorld.run(databaseURL: database.url) { world in
                let gateway = try await world.startGateway(databaseURL: database.url, operatorKey: Self.operatorKey)
                do {
                    try await Self.walk(world: world, gateway: gateway)
                } catch {
                    _ = try? await gateway.terminate()
                    throw ServiceProcess.Failure("\(error)\ngateway log: \(gateway.logTail())")
                }
                _ = try? await gateway.terminate()
            }
        }
    }

    /// The walk itself, against a running gateway in front of `world`.
    static func walk(world: StoreWorld, gateway: ServiceProcess) async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let envFile = state.appendingPathComponent("local.env")
        let seed = try runCLI([
            "seed", "demo", "--no-content", "--gateway-url", gateway.baseURL, "--operator-key", Self.operatorKey,
            "--env-file", envFile.path,
        ])
        #expect(seed.status == 0, "\(seed.output)")
        let keys = try DemoShopEndToEndTests.parseEnv(envFile)
        let publicKey = try #require(keys["SHOPKEEPER_PUBLIC_KEY"])
        var cli = [
            "SHOPKEEPER_GATEWAY_URL": gateway.baseURL, "SHOPKEEPER_SECRET_KEY": keys["SHOPKEEPER_SECRET_KEY"] ?? "",
            "SHOPKEEPER_SANDBOX_URL": world.sandbox.baseURL,
        ]
        #expect(try runCLI(["sandbox", "connect"], environment: cli).status == 0)

        // `boundary create-secret`, then `boundary set signed`, as the README does.
        let created = try runCLI(["boundary", "create-secret"], environment: cli)
        #expect(created.status == 0, "\(created.output)")
        let secret = try #require(
            try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any])
        cli["SHOPKEEPER_CUSTOMER_TOKEN_SECRET"] = secret["secret"] as? String
        cli["SHOPKEEPER_CUSTOMER_TOKEN_SECRET_ID"] = secret["secret_id"] as? String
        let switched = try runCLI(["boundary", "set", "signed"], environment: cli)
        #expect(switched.status == 0, "\(switched.output)")
        #expect(switched.output.contains(#""mode" : "signed""#), "\(switched.output)")
        let shown = try runCLI(["boundary", "show"], environment: cli)
        #expect(!shown.output.contains(secret["secret"] as? String ?? "-"), "the secret is shown once")

        let bought = try runCLI(
            ["sandbox", "buy", "--product", "com.shopkeeper.demo.garden.extra_garden", "--user", "bob"],
            environment: cli)
        #expect(bought.status == 0, "\(bought.output)")
        let proof = try #require(
            try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])
        let body = ["app_user_id": "bob", "signed_transaction": proof["signed_transaction"] ?? ""]

        func call(_ method: HTTPMethod, _ path: String, token: String?, json: [String: Any]? = nil)
            async throws -> (Int, [String: Any])
        {
            var headers = [("authorization", "Bearer \(publicKey)")]
            if let token { headers.append(("shopkeeper-customer-token", token)) }
            let answer = try await StoreWorld.send(method, gateway.baseURL + path, body: json, headers: headers)
            return (answer.status, answer.json)
        }
        func token(_ user: String) throws -> String {
            let minted = try runCLI(["customers", "token", "--user", user, "--ttl", "300"], environment: cli)
            #expect(minted.status == 0, "\(minted.output)")
            return minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let (refusedStatus, refused) = try await call(.POST, "/v1/purchases", token: nil, json: body)
        #expect(refusedStatus == 401)
        #expect(refused["code"] as? String == "customer_token_required")

        let bob = try token("bob")
        let (status, answer) = try await call(.POST, "/v1/purchases", token: bob, json: body)
        #expect(status == 200, "\(answer)")
        let (readStatus, customer) = try await call(.GET, "/v1/customers/bob", token: bob)
        #expect(readStatus == 200)
        let grants = customer["entitlements"] as? [String: [String: Any]] ?? [:]
        #expect(grants["extra_garden"]?["active"] as? Bool == true, "\(customer)")
        let (otherStatus, other) = try await call(.GET, "/v1/customers/alice", token: bob)
        #expect(otherStatus == 403)
        #expect(other["code"] as? String == "customer_token_mismatch")
        // The body names alice, the token bob: the verifier refuses.
        let (mismatchStatus, mismatch) = try await call(
            .POST, "/v1/purchases", token: bob,
            json: ["app_user_id": "alice", "signed_transaction": proof["signed_transaction"] ?? ""])
        #expect(mismatchStatus == 403)
        #expect(mismatch["code"] as? String == "customer_token_mismatch")

        // `answers create-key`: from now on the app's answers are signed (here through the router's way in, as the
        // request carries a customer token).
        let keyCreated = try runCLI(["answers", "create-key"], environment: cli)
        #expect(keyCreated.status == 0, "\(keyCreated.output)")
        let key = try #require(
            try JSONSerialization.jsonObject(with: Data(keyCreated.output.utf8)) as? [String: Any])
        let keyID = try #require(key["key_id"] as? String)
        #expect(key["active"] as? Bool == true)
        #expect(try runCLI(["answers", "show"], environment: cli).output.contains(#""signing" : true"#))
        var read = HTTPClientRequest(url: gateway.baseURL + "/v1/customers/bob")
        read.headers.add(name: "authorization", value: "Bearer \(publicKey)")
        read.headers.add(name: "shopkeeper-customer-token", value: bob)
        read.headers.add(name: "x-shopkeeper-nonce", value: "cli-walk")
        let signed = try await HTTPClient.shared.execute(read, timeout: .seconds(30))
        _ = try await signed.body.collect(upTo: 1 << 20)
        #expect(signed.headers.first(name: "x-shopkeeper-signature")?.hasPrefix("v1;key=\(keyID);t=") == true)
        let unknown = try runCLI(["answers", "activate", "ask_nope"], environment: cli)
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("answer_signing_key_not_found"), "\(unknown.output)")
    }
}
