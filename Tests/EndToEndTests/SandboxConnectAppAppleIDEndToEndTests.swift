import Foundation
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// The default local stack agrees with itself: `shopkeeper sandbox connect` registers the App Apple ID the sandbox
/// store signs for the demo's bundle id, so the app-level notifications it sends (`RESCIND_CONSENT`, whose only link to
/// the app is that number) reach the app.
@Suite struct SandboxConnectAppAppleIDEndToEndTests {
    static let operatorKey = "op_e2e_connect_app_apple_id_0123456789"

    @Test func connectRegistersTheSandboxsAppAppleIDAndItsNotificationsAreTaken() async throws {
        try await TestDatabase.withFreshDatabase { database in
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("connect-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: state) }
            let sandbox = try await ServiceProcess.sandboxStore(state: state)
            let stack = try await GatewayStack.start(
                databaseURL: database.url, operatorKey: Self.operatorKey,
                verifierEnvironment: sandbox.storeEnvironment(state: state))
            let shop = try SeededDemoShop.seed(
                gatewayURL: stack.gateway.baseURL, operatorKey: Self.operatorKey, sandboxURL: sandbox.baseURL,
                envFile: state.appendingPathComponent("local.env"))
            // "apple:  bundle <id>, app <App Apple ID>, ..."
            let line = try #require(
                shop.connectOutput.split(separator: "\n").first { $0.contains("apple:  bundle ") },
                "\(shop.connectOutput)")
            let bundleID = String(line.split(separator: " ").drop { $0 != "bundle" }.dropFirst().first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: ","))
            #expect(
                line.contains("app \(AppleAppIdentity.appAppleId(bundleId: bundleID)),"), "\(shop.connectOutput)")

            let configured = try await StoreWorld.send(
                .PUT, sandbox.baseURL + "/sandbox/notifications",
                body: ["apple_url": stack.gateway.baseURL + "/v1/notifications/apple"], headers: [])
            #expect(configured.status == 200, "\(configured.json)")
            let sent = try await StoreWorld.send(
                .POST, sandbox.baseURL + "/sandbox/notifications/apple/rescind-consent",
                body: ["bundle_id": bundleID, "app_account_token": UUID().uuidString.lowercased()], headers: [])
            #expect(sent.status == 201, "\(sent.json)")
            let uuid = try #require(sent["notification_uuid"] as? String, "\(sent.json)")
            // Sent again and answered at once: the gateway takes it (before, 404 unknown_app: another App Apple ID).
            let resent = try await StoreWorld.send(
                .POST, sandbox.baseURL + "/sandbox/notifications/\(uuid)/resend", body: nil, headers: [])
            #expect((resent["statuses"] as? [Int]) == [200], "\(resent.json)")
            try await stack.stop()
            _ = try? await sandbox.terminate()
        }
    }
}
