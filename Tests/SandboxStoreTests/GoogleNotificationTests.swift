import Foundation
import ShopkeeperStores
import Testing
import _CryptoExtras

@testable import SandboxStore

/// Play real-time developer notifications as Pub/Sub pushes them: an envelope with the notification in base64, an
/// OIDC token that verifies against the keys the sandbox publishes, and `subscriptionsv2` agreeing with each.
@Suite struct GoogleNotificationTests {
    /// A new one each time (`[String: Any]` is not `Sendable`).
    static var subscription: [String: Any] {
        [
            "product_id": "garden.monthly", "type": "subscription", "period": "P1M",
        ]
    }

    /// The pushes received (waiting for `count`), their tokens checked against the published keys.
    func notifications(_ world: NotificationWorld, count: Int) async throws -> [(
        PubSubPushEnvelope, GoogleDeveloperNotification
    )] {
        let received = try await world.inbox.wait(for: count, at: "/google")
        #expect(received.count >= count)
        let jwks = try await world.sandbox.send(.get, "/google/oauth2/v3/certs")
        let keys = try world.sandbox.decode(GoogleJSONWebKeySet.self, jwks)
        // The verifier's own check of push tokens, configured with the published keys.
        let pushTokens = GooglePushTokenVerifier(
            jwksJSON: String(buffer: jwks.body), audience: world.googleURL,
            emails: ["play-rtdn-push@shopkeeper-sandbox.iam.gserviceaccount.com"])
        var result: [(PubSubPushEnvelope, GoogleDeveloperNotification)] = []
        for request in received {
            let authorization = try #require(request.authorization)
            #expect(authorization.hasPrefix("Bearer "))
            let token = String(authorization.dropFirst(7))
            _ = try await pushTokens.verify(token)
            let jws = try #require(CompactJWS(token))
            let kid = try #require(jws.header.kid)
            let key = try #require(keys.key(id: kid)?.publicKey)
            #expect(jws.header.alg == "RS256" && jws.hasValidRS256Signature(by: key))
            let claims = try #require(jws.decodedPayload(as: GooglePushTokenClaims.self))
            let now = Int64(Date().timeIntervalSince1970)
            #expect(GooglePushTokenClaims.issuers.contains(claims.iss) && claims.aud == world.googleURL)
            #expect(claims.email == "play-rtdn-push@shopkeeper-sandbox.iam.gserviceaccount.com")
            #expect(claims.email_verified == true && claims.iat <= now + 5 && claims.exp > now)
            #expect(claims.sub != nil && claims.azp == claims.sub)
            let envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(request.body.utf8))
            #expect(envelope.message.messageId != nil && envelope.message.message_id == envelope.message.messageId)
            #expect(envelope.subscription?.hasPrefix("projects/") == true && envelope.message.publishTime != nil)
            let notification = try #require(envelope.message.developerNotification)
            #expect(notification.version == "1.0" && notification.packageName == "com.example.garden")
            result.append((envelope, notification))
        }
        return result
    }

    /// `subscriptionsv2.get` of `token`.
    func subscriptionV2(_ world: NotificationWorld, _ token: String, bearer: String) async throws
        -> GoogleSubscriptionPurchaseV2
    {
        try world.sandbox.decode(
            GoogleSubscriptionPurchaseV2.self,
            try await world.sandbox.send(
                .get,
                "/google/androidpublisher/v3/applications/com.example.garden/purchases/subscriptionsv2/tokens/\(token)",
                bearer: bearer))
    }

    @Test func aSubscriptionsLifeInPushesAndSubscriptionsV2() async throws {
        try await NotificationWorld.run { world in
            let bearer = try await world.sandbox.googleAccessToken()
            try await world.control(
                .put, "/sandbox/google/apps/com.example.garden", json: ["grace_period": "P7D", "account_hold": "P30D"])
            let bought = try await world.sandbox.buyGoogle(Self.subscription)
            let token = bought.purchaseToken
            let path = "/sandbox/google/purchases/\(token)"
            let start = try await subscriptionV2(world, token, bearer: bearer)
            #expect(start.subscriptionState == "SUBSCRIPTION_STATE_ACTIVE")

            try await world.control(.post, path + "/advance")
            let renewed = try await subscriptionV2(world, token, bearer: bearer)
            #expect(renewed.subscriptionState == "SUBSCRIPTION_STATE_ACTIVE")
            #expect(renewed.latestOrderId == bought.orderId + "..0")
            #expect((renewed.lineItems?.first?.expiryTime ?? "") > (start.lineItems?.first?.expiryTime ?? "~"))

            try await world.control(.post, path + "/billing", json: ["fails": true])
            try await world.control(.post, path + "/advance")
            #expect(
                try await subscriptionV2(world, token, bearer: bearer).subscriptionState
                    == "SUBSCRIPTION_STATE_IN_GRACE_PERIOD")
            try await world.control(.post, path + "/advance")
            #expect(
                try await subscriptionV2(world, token, bearer: bearer).subscriptionState
                    == "SUBSCRIPTION_STATE_ON_HOLD")
            try await world.control(.post, path + "/billing", json: ["fails": false])
            #expect(
                try await subscriptionV2(world, token, bearer: bearer).subscriptionState
                    == "SUBSCRIPTION_STATE_ACTIVE")
            try await world.control(.post, path + "/auto-renew", json: ["enabled": false])
            let canceled = try await subscriptionV2(world, token, bearer: bearer)
            #expect(canceled.subscriptionState == "SUBSCRIPTION_STATE_CANCELED")
            #expect(canceled.lineItems?.first?.autoRenewingPlan?.autoRenewEnabled == false)
            try await world.control(.post, path + "/auto-renew", json: ["enabled": true])
            try await world.control(.post, path + "/auto-renew", json: ["enabled": false])
            try await world.control(.post, path + "/advance")
            #expect(
                try await subscriptionV2(world, token, bearer: bearer).subscriptionState
                    == "SUBSCRIPTION_STATE_EXPIRED")

            let expected: [GoogleSubscriptionNotificationType] = [
                .purchased, .renewed, .inGracePeriod, .onHold, .recovered, .canceled, .restarted, .canceled, .expired,
            ]
            let pushes = try await notifications(world, count: expected.count)
            #expect(pushes.map { $0.1.subscriptionNotification?.type } == expected)
            #expect(pushes.allSatisfy { $0.1.subscriptionNotification?.purchaseToken == token })
            #expect(pushes.allSatisfy { $0.1.subscriptionNotification?.subscriptionId == "garden.monthly" })
            #expect(Set(pushes.map { $0.0.message.id }).count == expected.count)
        }
    }

    @Test func oneTimePurchasesRefundsAndTheTestNotification() async throws {
        try await NotificationWorld.run { world in
            let product = try await world.sandbox.buyGoogle()
            let pending = try await world.sandbox.buyGoogle(["pending": true])
            let subscription = try await world.sandbox.buyGoogle(Self.subscription)
            try await world.control(.post, "/sandbox/google/purchases/\(pending.purchaseToken)/complete")
            try await world.control(.post, "/sandbox/google/purchases/\(product.purchaseToken)/refund")
            try await world.control(.post, "/sandbox/google/purchases/\(subscription.purchaseToken)/refund")
            try await world.control(
                .post, "/sandbox/notifications/google", json: ["type": "test", "package_name": "com.example.garden"],
                status: .created)
            let unpaid = try await world.sandbox.buyGoogle(["pending": true])
            let unpaidPlan = try await world.sandbox.buyGoogle(Self.subscription.merging(["pending": true]) { $1 })
            for token in [unpaid.purchaseToken, unpaidPlan.purchaseToken] {
                let canceled = try await world.control(.post, "/sandbox/google/purchases/\(token)/cancel")
                #expect(canceled["purchase_state"] as? Int == 1)
                try await world.control(.post, "/sandbox/google/purchases/\(token)/cancel", status: .conflict)
            }
            let bearer = try await world.sandbox.googleAccessToken()
            #expect(
                try await subscriptionV2(world, unpaidPlan.purchaseToken, bearer: bearer).subscriptionState
                    == "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED")
            let pushes = try await notifications(world, count: 9).map(\.1)
            #expect(pushes[7].oneTimeProductNotification?.type == .canceled)
            #expect(pushes[8].subscriptionNotification?.type == .pendingPurchaseCanceled)
            #expect(pushes[0].oneTimeProductNotification?.type == .purchased)
            #expect(pushes[0].oneTimeProductNotification?.sku == "fertilizer")
            #expect(pushes[1].subscriptionNotification?.type == .purchased)
            #expect(pushes[2].oneTimeProductNotification?.purchaseToken == pending.purchaseToken)
            #expect(pushes[3].voidedPurchaseNotification?.purchaseToken == product.purchaseToken)
            #expect(pushes[3].voidedPurchaseNotification?.productType == 2)
            #expect(pushes[4].subscriptionNotification?.type == .revoked)
            #expect(pushes[5].voidedPurchaseNotification?.productType == 1)
            #expect(pushes[5].voidedPurchaseNotification?.refundType == 1)
            #expect(pushes[6].testNotification != nil)
            try await world.control(
                .post, "/sandbox/google/purchases/\(subscription.purchaseToken)/advance", status: .conflict)
        }
    }

    @Test func anUpgradeIsANewPurchaseTokenLinkedToTheOldOne() async throws {
        try await NotificationWorld.run { world in
            let bearer = try await world.sandbox.googleAccessToken()
            let bought = try await world.sandbox.buyGoogle(Self.subscription)
            let changed = try await world.control(
                .post, "/sandbox/google/purchases/\(bought.purchaseToken)/change-product",
                json: ["product_id": "garden.yearly"])
            let new = try #require((changed["subscription"] as? [String: Any])?["purchase_token"] as? String)
            #expect(new != bought.purchaseToken)
            let upgraded = try await subscriptionV2(world, new, bearer: bearer)
            #expect(upgraded.linkedPurchaseToken == bought.purchaseToken)
            #expect(upgraded.subscriptionState == "SUBSCRIPTION_STATE_ACTIVE")
            #expect(upgraded.lineItems?.first?.productId == "garden.yearly")
            let replaced = try await subscriptionV2(world, bought.purchaseToken, bearer: bearer)
            #expect(replaced.subscriptionState == "SUBSCRIPTION_STATE_EXPIRED")
            try await world.control(
                .post, "/sandbox/google/purchases/\(bought.purchaseToken)/change-product",
                json: ["product_id": "garden.weekly"], status: .conflict)
            let pushes = try await notifications(world, count: 2).map(\.1)
            #expect(pushes.map { $0.subscriptionNotification?.type } == [.purchased, .purchased])
            #expect(pushes.map { $0.subscriptionNotification?.purchaseToken } == [bought.purchaseToken, new])
        }
    }

    @Test func thePublishedKeysAreStableAcrossRestarts() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = KeySets()
        for _ in 0..<2 {
            try await SandboxHarness.run(stateDirectory: directory) { sandbox in
                let response = try await sandbox.send(.get, "/google/oauth2/v3/certs")
                #expect(response.headers[.cacheControl] != nil)
                let keys = try sandbox.decode(GoogleJSONWebKeySet.self, response)
                #expect(keys.keys.count == 1 && keys.keys[0].kty == "RSA" && keys.keys[0].e == "AQAB")
                #expect(keys.keys[0].publicKey?.keySizeInBits == 2048)
                await seen.add(keys)
                // The same keys are written beside root.pem, for a local verifier's SHOPKEEPER_GOOGLE_PUSH_JWKS.
                let file = try Data(contentsOf: directory.appendingPathComponent("google-push-jwks.json"))
                #expect(try JSONDecoder().decode(GoogleJSONWebKeySet.self, from: file) == keys)
            }
        }
        let sets = await seen.sets
        #expect(sets.count == 2 && sets[0] == sets[1])
    }
}

/// Key sets seen across runs.
actor KeySets {
    var sets: [GoogleJSONWebKeySet] = []
    func add(_ set: GoogleJSONWebKeySet) { sets.append(set) }
}
