import Foundation
import Testing

@testable import ShopkeeperKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signed answers end to end: the demo app signs its answers, a kit that trusts its key buys and restores through
/// the real gateway, and a proxy between the kit and the gateway that alters, replays, strips or re-asks an answer is
/// caught every time, without the cached customer info changing.
@Suite(.enabled(if: Stack.available)) struct SignedAnswersStackTests {
    /// The demo app's active answer signing key (created on first use), as the app would configure it.
    static func trustedKeys(_ stack: Stack) async throws -> [String: String] {
        struct Keys: Decodable {
            struct Key: Decodable {
                var key_id: String
                var public_key: String
                var active: Bool
            }
            var keys: [Key]
        }
        var keys = try JSONDecoder().decode(Keys.self, from: try await stack.admin("GET", "v1/admin/answer-signing"))
        if !keys.keys.contains(where: \.active) {
            _ = try await stack.admin("POST", "v1/admin/answer-signing/keys")
            keys = try JSONDecoder().decode(Keys.self, from: try await stack.admin("GET", "v1/admin/answer-signing"))
        }
        return Dictionary(keys.keys.map { ($0.key_id, $0.public_key) }) { first, _ in first }
    }

    @Test func aKitThatTrustsTheKeyBuysAndRestoresThroughSignedAnswers() async throws {
        let stack = try Stack.require()
        let device = try stack.device(answerKeys: try await Self.trustedKeys(stack))
        let kit = device.shopkeeper
        guard case .delivered(let info) = try await kit.purchase(productID: "extra_garden") else {
            Issue.record("the purchase was not delivered")
            return
        }
        #expect(info.customer?.entitlements["extra_garden"]?.active == true)
        #expect(try await kit.customerInfo().entitlements["extra_garden"]?.active == true)
        let restored = try await kit.restore()
        #expect(restored.customer.entitlements["extra_garden"]?.active == true)
    }

    @Test func aProxyThatAltersReplaysStripsOrReasksIsCaught() async throws {
        let stack = try Stack.require()
        let keys = try await Self.trustedKeys(stack)
        let proxy = try await TamperingProxy(gateway: stack.gatewayURL)
        defer { proxy.stop() }
        let configuration = ShopkeeperConfiguration(
            baseURL: proxy.url, apiKey: stack.publicKey, appVersion: "2.0",
            storageDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)"),
            retryPolicy: RetryPolicy(maxAttempts: 1), answerKeys: keys)
        let api = ShopkeeperAPI(configuration: configuration)
        let user = "signed-\(UUID().uuidString)"

        try await proxy.set("pass")
        let honest = try await api.customerInfo(appUserID: user)
        #expect(honest.appUserID == user)
        #expect(honest.entitlements.isEmpty)
        let cacheKey = proxy.url.absoluteString + "/v1/customers/\(user)"
        let keptETag = try #require(await api.cache.etag(for: cacheKey))

        for mode in ["grant", "strip", "nonce", "replay"] {
            try await proxy.set(mode)
            do {
                let taken = try await api.customerInfo(appUserID: user)
                Issue.record("\(mode): the kit took a tampered answer: \(taken.entitlements.keys.sorted())")
            } catch {
                guard case .untrustedAnswer = error else {
                    Issue.record("\(mode): \(error)")
                    continue
                }
            }
            #expect(await api.cache.etag(for: cacheKey) == keptETag, "\(mode) changed the kept answer")
        }
        try await proxy.set("pass")
        #expect(try await api.customerInfo(appUserID: user) == honest)
    }
}

/// `Scripts/tampering-proxy.py` in front of the gateway: a real HTTP proxy that alters, strips, re-asks or replays
/// answers as told (``set(_:)``).
struct TamperingProxy {
    let process: Process
    /// The proxy's standard input: it exits when this closes (here, or when the test process ends).
    let input = Pipe()
    let url: URL

    init(gateway: URL) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/tampering-proxy.py")
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, gateway.absoluteString, portFile.path]
        process.standardInput = input
        try process.run()
        #expect(try await eventually { FileManager.default.fileExists(atPath: portFile.path) }, "the proxy started")
        let port = try String(contentsOf: portFile, encoding: .utf8)
        url = try #require(URL(string: "http://127.0.0.1:\(port)"))
    }

    func set(_ mode: String) async throws {
        var request = URLRequest(url: url.appendingPathComponent("__mode/\(mode)"))
        request.httpMethod = "POST"
        request.httpBody = Data()
        let (_, response) = try await URLSession.shared.data(for: request)
        try #require((response as? HTTPURLResponse)?.statusCode == 204)
    }

    /// Ends the proxy by closing its input (not waited for: `waitUntilExit` needs a run loop, which a test's task
    /// does not have).
    func stop() {
        try? input.fileHandleForWriting.close()
    }
}
