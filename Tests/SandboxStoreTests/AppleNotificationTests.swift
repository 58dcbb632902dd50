import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// App Store Server Notifications V2 the sandbox sends, driven by its clock controls, checked as an app's server
/// would check them: signed by the sandbox's chain, in the order things happened, agreeing with the App Store Server
/// API.
@Suite struct AppleNotificationTests {
    /// A new one each time (`[String: Any]` is not `Sendable`).
    static var monthly: [String: Any] {
        [
            "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
        ]
    }

    @Test func buyRenewTwiceFailIntoGraceRecoverCancelExpire() async throws {
        try await NotificationWorld.run { world in
            let sandbox = world.sandbox
            try await world.control(.put, "/sandbox/apple/apps/com.example.garden", json: ["grace_period": "P16D"])
            let bought = try await sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)"
            try await world.control(.post, path + "/advance")
            try await world.control(.post, path + "/advance")
            try await world.control(.post, path + "/billing", json: ["fails": true])
            let failed = try await world.control(.post, path + "/advance")
            #expect((failed["subscription"] as? [String: Any])?["status"] as? Int == 4)
            let recovered = try await world.control(.post, path + "/billing", json: ["fails": false])
            let sent = try #require(recovered["notifications"] as? [[String: Any]])
            #expect(
                sent.first?["type"] as? String == "DID_RENEW" && sent.first?["subtype"] as? String == "BILLING_RECOVERY"
            )
            try await world.control(.post, path + "/renewal", json: ["auto_renew": false])
            try await world.control(.post, path + "/advance")
            let expected = [
                "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
                "DID_RENEW/BILLING_RECOVERY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY",
            ]
            // Each notification once: on a loaded machine a delivery may be retried after a late answer.
            #expect(try await world.appleKinds(count: expected.count, distinct: true) == expected)

            let payloads = try await world.apple(count: expected.count, distinct: true)
            #expect(Set(payloads.map(\.notificationUUID)).count == payloads.count)
            var expiries: [Int64] = []
            var transactionIds: [String] = []
            for payload in payloads {
                #expect(payload.version == "2.0" && payload.environment == "Sandbox")
                #expect(payload.data?.bundleId == "com.example.garden")
                let (transaction, renewal) = try await world.contents(payload)
                let signed = try #require(transaction)
                #expect(signed.originalTransactionId == bought.transactionId)
                #expect(renewal?.originalTransactionId == bought.transactionId)
                expiries.append(try #require(signed.expiresDate))
                transactionIds.append(try #require(signed.transactionId))
            }
            // Each renewal is a new transaction whose period follows; a stage that ends a period ends it at once.
            #expect(Set(transactionIds).count == 4)
            let renewals = [expiries[0], expiries[1], expiries[2], expiries[4]]
            #expect(renewals == renewals.sorted() && Set(renewals).count == 4)
            #expect(expiries[3] <= (payloads[3].signedDate ?? 0) && expiries[6] <= (payloads[6].signedDate ?? 0))
            #expect(payloads.map { $0.data?.status } == [1, 1, 1, 4, 1, 1, 2])
            let (_, graceRenewal) = try await world.contents(payloads[3])
            #expect(graceRenewal?.isInBillingRetryPeriod == true && graceRenewal?.gracePeriodExpiresDate != nil)
            let (_, lastRenewal) = try await world.contents(payloads[6])
            #expect(lastRenewal?.autoRenewStatus == 0 && lastRenewal?.expirationIntent == 1)

            // The App Store Server API tells the same story.
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let status = try sandbox.decode(
                AppStoreStatusResponse.self,
                try await sandbox.send(
                    .get, "/apple/sandbox/inApps/v1/subscriptions/\(bought.transactionId)", bearer: bearer))
            let item = try #require(status.data?.first?.lastTransactions?.first)
            #expect(item.status == 2)
            let latest = try await world.verifier.verify(
                try #require(item.signedTransactionInfo), as: AppleTransactionPayload.self)
            #expect(latest.transactionId == transactionIds.last)
        }
    }

    @Test func billingRetryWithoutGraceEndsInExpiredBillingRetryAndABuyResubscribes() async throws {
        try await NotificationWorld.run { world in
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)"
            try await world.control(.post, path + "/billing", json: ["fails": true])
            let failed = try await world.control(.post, path + "/advance")
            #expect((failed["subscription"] as? [String: Any])?["status"] as? Int == 3)
            try await world.control(.post, path + "/advance")
            try await world.control(.post, path + "/advance", status: .conflict)
            try await world.sandbox.buyApple(
                Self.monthly.merging(["original_transaction_id": bought.transactionId]) { $1 })
            #expect(
                try await world.appleKinds(count: 4) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW", "EXPIRED/BILLING_RETRY", "SUBSCRIBED/RESUBSCRIBE",
                ])
            let payloads = try await world.apple(count: 4)
            let (_, renewal) = try await world.contents(payloads[2])
            #expect(renewal?.expirationIntent == 2 && renewal?.isInBillingRetryPeriod == false)
            #expect(payloads[2].data?.status == 2 && payloads[3].data?.status == 1)
        }
    }

    @Test func aGracePeriodExpiresBeforeBillingRetryEnds() async throws {
        try await NotificationWorld.run { world in
            try await world.control(
                .put, "/sandbox/apple/apps/com.example.garden",
                json: ["grace_period": "P3D", "billing_retry_period": "P60D"])
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)"
            try await world.control(.post, path + "/billing", json: ["fails": true])
            for _ in 0..<3 { try await world.control(.post, path + "/advance") }
            #expect(
                try await world.appleKinds(count: 4) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED",
                    "EXPIRED/BILLING_RETRY",
                ])
            #expect(try await world.apple(count: 4).map { $0.data?.status } == [1, 4, 3, 2])
        }
    }

    @Test func refundRevokeOneTimeChargeAndTest() async throws {
        try await NotificationWorld.run { world in
            let subscription = try await world.sandbox.buyApple(Self.monthly)
            let consumable = try await world.sandbox.buyApple()
            try await world.control(
                .post, "/sandbox/apple/transactions/\(subscription.transactionId)/refund", json: ["reason": 1])
            try await world.control(.post, "/sandbox/apple/transactions/\(consumable.transactionId)/revoke")
            try await world.control(
                .post, "/sandbox/notifications/apple", json: ["type": "TEST", "bundle_id": "com.example.garden"],
                status: .created)
            #expect(
                try await world.appleKinds(count: 5) == [
                    "SUBSCRIBED/INITIAL_BUY", "ONE_TIME_CHARGE", "REFUND", "REVOKE", "TEST",
                ])
            let payloads = try await world.apple(count: 5)
            let (refunded, renewal) = try await world.contents(payloads[2])
            #expect(refunded?.revocationReason == 1 && refunded?.revocationDate != nil)
            #expect(renewal?.autoRenewStatus == 0 && payloads[2].data?.status == 5)
            let (oneTime, noRenewal) = try await world.contents(payloads[1])
            #expect(oneTime?.type == "Consumable" && noRenewal == nil && payloads[1].data?.status == nil)
            #expect(
                payloads[4].data?.signedTransactionInfo == nil && payloads[4].data?.bundleId == "com.example.garden")
            // A refunded subscription is left alone by the clock.
            try await world.control(
                .post, "/sandbox/apple/subscriptions/\(subscription.transactionId)/advance", status: .conflict)
        }
    }

    @Test func anUpgradeStartsTheNewProductNowADowngradeAtTheNextRenewal() async throws {
        try await NotificationWorld.run { world in
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)"
            try await world.control(
                .post, path + "/change-product", json: ["product_id": "garden.premium", "kind": "upgrade"])
            try await world.control(
                .post, path + "/change-product", json: ["product_id": "garden.monthly", "kind": "downgrade"])
            let state = try await world.control(.get, path)
            #expect(state["product_id"] as? String == "garden.premium")
            #expect(state["renews_into"] as? String == "garden.monthly")
            // The App Store Server API's renewal info names the product it renews into, as the notification does.
            let bearer = try AppleBearer.token(try await world.sandbox.appleKey())
            let status = try world.sandbox.decode(
                AppStoreStatusResponse.self,
                try await world.sandbox.send(
                    .get, "/apple/sandbox/inApps/v1/subscriptions/\(bought.transactionId)", bearer: bearer))
            let pending = try await world.verifier.verify(
                try #require(status.data?.first?.lastTransactions?.first?.signedRenewalInfo),
                as: AppleRenewalInfoPayload.self)
            #expect(pending.productId == "garden.premium" && pending.autoRenewProductId == "garden.monthly")
            try await world.control(.post, path + "/advance")
            #expect(
                try await world.appleKinds(count: 4) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE",
                    "DID_RENEW",
                ])
            let payloads = try await world.apple(count: 4)
            let (upgraded, _) = try await world.contents(payloads[1])
            #expect(upgraded?.productId == "garden.premium" && upgraded?.transactionId != bought.transactionId)
            let (_, downgrade) = try await world.contents(payloads[2])
            #expect(downgrade?.productId == "garden.premium" && downgrade?.autoRenewProductId == "garden.monthly")
            let (renewed, renewal) = try await world.contents(payloads[3])
            #expect(renewed?.productId == "garden.monthly" && renewal?.autoRenewProductId == "garden.monthly")
            // The first transaction was upgraded out of: its period ended at the upgrade.
            let info = try world.sandbox.decode(
                AppStoreTransactionInfoResponse.self,
                try await world.sandbox.send(
                    .get, "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)", bearer: bearer))
            let first = try await world.verifier.verify(
                try #require(info.signedTransactionInfo), as: AppleTransactionPayload.self)
            #expect(first.isUpgraded == true && (first.expiresDate ?? .max) <= (upgraded?.purchaseDate ?? 0))
        }
    }

    @Test func theFastClockRenewsOnItsOwn() async throws {
        // A month lasts one second.
        let environment = [
            "SHOPKEEPER_SANDBOX_TIME_SCALE": "2592000", "SHOPKEEPER_SANDBOX_AUTO_RENEW": "true",
            "SHOPKEEPER_SANDBOX_TICK_MS": "50",
        ]
        try await NotificationWorld.run(environment: environment) { world in
            let before = Date()
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let payloads = try await world.apple(count: 3)
            #expect(payloads.prefix(3).map(\.notificationType) == ["SUBSCRIBED", "DID_RENEW", "DID_RENEW"])
            let (first, _) = try await world.contents(payloads[0])
            let length = Double((first?.expiresDate ?? 0) - (first?.purchaseDate ?? 0)) / 1000
            #expect(abs(length - 1) < 0.01)
            // The next period starts where this one ended (or, when the clock ran late by more than a period, now).
            let (renewal, _) = try await world.contents(payloads[1])
            let renewalStart = try #require(renewal?.purchaseDate)
            #expect(renewalStart >= (first?.expiresDate ?? .max) && renewalStart <= Date().appleMilliseconds)
            #expect(abs(Double((renewal?.expiresDate ?? 0) - renewalStart) / 1000 - 1) < 0.01)
            #expect(renewal?.originalTransactionId == bought.transactionId && renewal?.transactionReason == "RENEWAL")
            #expect(Date().timeIntervalSince(before) >= 2)
        }
    }

    /// `advance` can decide one attempt: it fails (with a grace period of so many real seconds), and the next
    /// `advance` is a retry that succeeds; the clock alone never recovers it.
    @Test func oneAttemptFailsOnRequestAndTheNextAdvanceRecovers() async throws {
        let environment = ["SHOPKEEPER_SANDBOX_AUTO_RENEW": "true", "SHOPKEEPER_SANDBOX_TICK_MS": "20"]
        try await NotificationWorld.run(environment: environment) { world in
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)/advance"
            let renewed = try await world.control(.post, path)
            #expect(renewed["result"] as? String == "renewed" && renewed["status"] as? Int == 1)
            #expect(renewed["original_transaction_id"] as? String == bought.transactionId)
            #expect(renewed["transaction_id"] as? String != bought.transactionId)
            let failed = try await world.control(
                .post, path, json: ["outcome": "fail", "grace_period_seconds": 3600])
            #expect(failed["result"] as? String == "billing_failed" && failed["status"] as? Int == 4)
            let grace = try #require(
                (failed["subscription"] as? [String: Any])?["grace_period_expires_date"] as? String)
            let graceEnd = try #require(try? Date(grace, strategy: .iso8601))
            #expect(abs(graceEnd.timeIntervalSinceNow - 3600) < 60)
            // The clock keeps it in grace.
            try await Task.sleep(for: .milliseconds(300))
            let state = try await world.control(.get, "/sandbox/apple/subscriptions/\(bought.transactionId)")
            #expect(state["status"] as? Int == 4 && state["billing_fails"] as? Bool == false)
            let recovered = try await world.control(.post, path)
            #expect(recovered["result"] as? String == "renewed" && recovered["status"] as? Int == 1)
            try await world.control(.post, path, json: ["outcome": "sometimes"], status: .unprocessableContent)
            #expect(
                try await world.appleKinds(count: 4) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
                    "DID_RENEW/BILLING_RECOVERY",
                ])
            let log = try await world.control(.get, "/sandbox/notifications?store=apple")
            let deliveries = try #require(log["deliveries"] as? [[String: Any]])
            #expect(deliveries.count == 4)
            #expect(deliveries.allSatisfy { $0["notification_uuid"] as? String == $0["id"] as? String })
            let test = try await world.control(
                .post, "/sandbox/notifications/apple/test", json: ["bundle_id": "com.example.garden"], status: .created)
            #expect(test["type"] as? String == "TEST" && test["notification_uuid"] != nil)
        }
    }

    /// Apple's own corrections: a renewal date extended, a refund reversed, each said and in force.
    @Test func aRenewalExtensionAndARefundReversal() async throws {
        try await NotificationWorld.run { world in
            let bought = try await world.sandbox.buyApple(Self.monthly)
            let path = "/sandbox/apple/subscriptions/\(bought.transactionId)"
            let before = try #require(try await world.control(.get, path)["expires_date"] as? String)
            let extended = try await world.control(.post, path + "/extend", json: ["days": 10])
            #expect(extended["result"] as? String == "renewal_extended")
            let after = try #require((extended["subscription"] as? [String: Any])?["expires_date"] as? String)
            let gained = try Date(after, strategy: .iso8601).timeIntervalSince(try Date(before, strategy: .iso8601))
            #expect(abs(gained - 10 * 86_400) < 1)
            try await world.control(.post, path + "/extend", json: ["days": 91], status: .unprocessableContent)
            try await world.control(.post, "/sandbox/apple/transactions/\(bought.transactionId)/refund")
            try await world.control(.post, path + "/advance", status: .conflict)
            let reversed = try await world.control(
                .post, "/sandbox/apple/transactions/\(bought.transactionId)/reverse-refund")
            #expect(reversed["result"] as? String == "refund_reversed")
            try await world.control(
                .post, "/sandbox/apple/transactions/\(bought.transactionId)/reverse-refund", status: .conflict)
            let consumable = try await world.sandbox.buyApple()
            try await world.control(.post, "/sandbox/apple/transactions/\(consumable.transactionId)/refund")
            try await world.control(.post, "/sandbox/apple/transactions/\(consumable.transactionId)/reverse-refund")
            // In force again: the clock moves the subscription on.
            try await world.control(.post, path + "/advance")
            #expect(
                try await world.appleKinds(count: 8) == [
                    "SUBSCRIBED/INITIAL_BUY", "RENEWAL_EXTENDED", "REFUND", "REFUND_REVERSED", "ONE_TIME_CHARGE",
                    "REFUND", "REFUND_REVERSED", "DID_RENEW",
                ])
            let payloads = try await world.apple(count: 8)
            let (restored, _) = try await world.contents(payloads[3])
            #expect(restored?.revocationDate == nil && payloads[3].data?.status == 1)
        }
    }
}
