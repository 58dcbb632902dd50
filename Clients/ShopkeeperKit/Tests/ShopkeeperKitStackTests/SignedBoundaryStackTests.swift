import Foundation
import Testing

@testable import ShopkeeperKit

/// An app whose customer boundary is `signed`: the kit sends the customer token its closure gives for the user it
/// acts for, and a purchase refused for want of a token is kept, not finished.
@Suite(.enabled(if: Stack.available)) struct SignedBoundaryStackTests {
    /// A new app of the stack (so the demo app stays `open` for the other tests) with the sandbox's signed
    /// transactions accepted, one product, and a customer token secret.
    struct SignedApp {
        var stack: Stack
        var publicKey: String
        var secretID: String
        var secret: String
        var bundleID: String
        var productID: String
    }

    func makeSignedApp() async throws -> SignedApp {
        let base = try Stack.require()
        let operatorKey = try #require(base.operatorKey, "local.env has no SHOPKEEPER_OPERATOR_KEY")
        let app = try await base.call(
            "POST", base.gatewayURL.appendingPathComponent("operator/v1/apps"), bearer: operatorKey,
            json: ["name": "kit signed \(UUID().uuidString.prefix(6))"])
        let appID = try #require(
            (try JSONSerialization.jsonObject(with: app.body) as? [String: Any])?["app_id"] as? String)
        func key(_ kind: String) async throws -> String {
            let answer = try await base.call(
                "POST", base.gatewayURL.appendingPathComponent("operator/v1/apps/\(appID)/keys"), bearer: operatorKey,
                json: ["kind": kind])
            return try #require(
                (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["key"] as? String)
        }
        let publicKey = try await key("public")
        let bundleID = "com.shopkeeper.kit.signed\(UUID().uuidString.prefix(6).lowercased())"
        let stack = Stack(
            gatewayURL: base.gatewayURL, sandboxURL: base.sandboxURL, publicKey: publicKey,
            secretKey: try await key("secret"),
            operatorKey: operatorKey, bundleID: bundleID)
        _ = try await stack.admin(
            "PUT", "v1/admin/stores/apple", json: ["bundle_id": bundleID, "environments": ["production", "sandbox"]])
        let product = try await stack.createProduct(type: .nonConsumable)
        let created = try await stack.admin("POST", "v1/admin/customer-boundary/secrets")
        let secret = try #require(try JSONSerialization.jsonObject(with: created) as? [String: Any])
        _ = try await stack.admin("PUT", "v1/admin/customer-boundary", json: ["mode": "signed"])
        return SignedApp(
            stack: stack, publicKey: publicKey, secretID: try #require(secret["secret_id"] as? String),
            secret: try #require(secret["secret"] as? String), bundleID: bundleID, productID: product.productID)
    }

    @Test func theTokenOfTheUserActedForIsSentAndAMissingOneKeepsThePurchase() async throws {
        let app = try await makeSignedApp()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        let store = SandboxDeviceStore(
            sandboxURL: app.stack.sandboxURL, bundleID: app.bundleID,
            deviceDirectory: folder.appendingPathComponent("store"))
        func shopkeeper(tokens: Bool) throws -> Shopkeeper {
            let (secret, secretID) = (app.secret, app.secretID)
            let mint: @Sendable (String) async throws -> String? = { user in
                CustomerTokenMinter.hs256(subject: user, secret: secret, keyID: secretID)
            }
            return try Shopkeeper(
                configuration: ShopkeeperConfiguration(
                    baseURL: app.stack.gatewayURL, apiKey: app.publicKey, appVersion: "2.0",
                    storageDirectory: folder.appendingPathComponent("shopkeeper"), retryPolicy: .none,
                    customerToken: tokens ? mint : nil),
                store: store)
        }

        // Without a token the server refuses to act for the customer: the purchase is kept, not finished.
        let tokenless = try shopkeeper(tokens: false)
        guard case .pending(let error) = try await tokenless.purchase(productID: app.productID) else {
            Issue.record("expected the purchase to be kept")
            return
        }
        #expect(error.code == "customer_token_required")
        #expect(try await store.unfinishedTransactions().count == 1)

        // With the app's token closure the same kept purchase goes through, and the customer is readable.
        let signed = try shopkeeper(tokens: true)
        let outcomes = await signed.retryPendingPurchases()
        guard case .delivered? = outcomes.values.first else {
            Issue.record("not delivered with a token: \(outcomes)")
            return
        }
        #expect(try await store.unfinishedTransactions().isEmpty)
        #expect(try await signed.customerInfo().entitlements[app.productID]?.active == true)

        // Logging in cannot link ids with the public key here (your server does): the kit switches user anyway.
        let user = "kit-signed-\(UUID().uuidString.prefix(6))"
        let info = try await signed.logIn(user)
        #expect(info.appUserID == user)
    }
}

/// What the developer's server does: an HS256 customer token (`sub`, `iat`, `exp`, `kid`).
enum CustomerTokenMinter {
    static func hs256(subject: String, secret: String, keyID: String, lifetime: TimeInterval = 300) -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"HS256","kid":"\#(keyID)","typ":"JWT"}"#
        let payload = try? JSONSerialization.data(withJSONObject: [
            "sub": subject, "iat": now, "exp": now + Int(lifetime),
        ])
        let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(payload ?? Data())
        let signature = hmacSHA256(key: Array(secret.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + base64URL(Data(signature))
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = sha256(block.map { $0 ^ 0x36 } + message)
        return sha256(block.map { $0 ^ 0x5c } + inner)
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(Data(bytes))
        return hasher.finalize()
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
