import Foundation
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperTestSupport
import Testing

/// The sandbox store sends an App Store Server Notification V2 of every type Apple documents, `RESCIND_CONSENT` and
/// `EXTERNAL_PURCHASE_TOKEN` included, through the real gateway to the verifier: each is answered 200, also when
/// Apple sends it again, and recorded once.
@Suite(.serialized) struct SandboxEveryNotificationEndToEndTests {
    static let types = [
        "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW", "DID_RENEW",
        "EXPIRED", "EXTERNAL_PURCHASE_TOKEN", "GRACE_PERIOD_EXPIRED", "METADATA_UPDATE", "MIGRATION", "OFFER_REDEEMED",
        "ONE_TIME_CHARGE", "PRICE_CHANGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED",
        "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "RESCIND_CONSENT", "REVOKE", "SUBSCRIBED", "TEST",
    ]

    /// The App Apple ID `StoreWorld` configures the app with: Apple's app-level notifications name the app by it.
    static let appAppleID = 1_234_567

    /// A monthly subscription, `garden.monthly` on the App Store.
    static var monthly: [String: Any] {
        [
            "product_id": "monthly", "type": "auto_renewable", "entitlements": ["pro"], "review_state": "approved",
            "cleared_for_sale": true, "free": false, "default_locale": "en", "group": "garden",
            "store_product_ids": ["app_store": "garden.monthly"],
            "localizations": ["en": ["name": "Monthly", "description": "Every month"]],
        ]
    }

    @Test func everyNotificationTypeIsAnswered200AndRecordedOnce() async throws {
        try await NotifiedStoreWorld.run(products: [Self.monthly], apiKey: true) { notified in
            let world = notified.world
            let token = UUID().uuidString.lowercased()
            let bought = try await world.sandbox(
                .POST, "/sandbox/apple/transactions",
                [
                    "bundle_id": world.bundleID, "product_id": "garden.monthly", "type": "Auto-Renewable Subscription",
                    "period": "P1M", "app_account_token": token,
                ])
            let transaction = try #require(bought["transaction_id"] as? String, "\(bought.json)")
            var uuids: [String: String] = [:]
            for type in Self.types {
                let sent: StoreWorld.Answer
                switch type {
                case "RESCIND_CONSENT":
                    sent = try await world.sandbox(
                        .POST, "/sandbox/notifications/apple/rescind-consent",
                        ["bundle_id": world.bundleID, "app_account_token": token, "app_apple_id": Self.appAppleID])
                case "EXTERNAL_PURCHASE_TOKEN":
                    sent = try await world.sandbox(
                        .POST, "/sandbox/notifications/apple/external-purchase-token",
                        ["bundle_id": world.bundleID, "app_apple_id": Self.appAppleID])
                case "TEST":
                    sent = try await world.sandbox(
                        .POST, "/sandbox/notifications/apple", ["type": type, "bundle_id": world.bundleID])
                case "RENEWAL_EXTENSION":
                    sent = try await world.sandbox(
                        .POST, "/sandbox/notifications/apple",
                        [
                            "type": type, "subtype": "SUMMARY", "bundle_id": world.bundleID,
                            "product_id": "garden.monthly", "app_apple_id": Self.appAppleID,
                        ])
                default:
                    sent = try await world.sandbox(
                        .POST, "/sandbox/notifications/apple", ["type": type, "transaction_id": transaction])
                }
                #expect(sent.status == 201, "\(type): \(sent.json)")
                uuids[type] = try #require(sent["notification_uuid"] as? String, "\(type): \(sent.json)")
            }
            for (type, uuid) in uuids.sorted(by: { $0.key < $1.key }) {
                // Apple sends it again (twice at once): the verifier answers 200 every time.
                let resent = try await world.sandbox(
                    .POST, "/sandbox/notifications/\(uuid)/resend?times=2&concurrency=2")
                #expect((resent["statuses"] as? [Int]) == [200, 200], "\(type): \(resent.json)")
                let delivery = try await world.sandbox(.GET, "/sandbox/notifications/\(uuid)")
                #expect(delivery["last_status"] as? Int == 200, "\(type): \(delivery.json)")
                let rows = try await TestDatabase.withClient(notified.database) { client in
                    let rows = try await client.query(
                        "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = \(uuid)")
                    for try await count in rows.decode(Int.self) { return count }
                    return 0
                }
                #expect(rows == 1, "\(type) recorded \(rows) times")
            }
        }
    }
}
