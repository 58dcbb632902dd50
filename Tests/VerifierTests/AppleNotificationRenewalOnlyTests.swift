import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// Notifications whose `data` carries renewal info and no transaction, and Apple JSON dates with a fraction.
@Suite("App Store notifications without a transaction, fractional dates") struct AppleNotificationRenewalOnlyTests {
    let notifications = AppleNotificationTests()

    static var products: [[String: Any]] {
        [
            [
                "product_id": "pro_monthly", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "group": "pro", "store_product_ids": ["app_store": "com.example.garden.pro"],
                "localizations": ["en": ["name": "Pro", "description": "Pro"]],
            ]
        ]
    }

    /// The subscription's `will_renew` in the subscriptions service, once it is `expected` (or after 10 seconds).
    func willRenew(_ original: String, database: DatabaseSettings, becomes expected: Bool?) async throws -> Bool? {
        try await eventually(
            timeout: .seconds(10),
            {
                try await TestDatabase.withClient(database) { client in
                    let rows = try await client.query(
                        """
                        SELECT will_renew FROM subscriptions.subscriptions
                        WHERE store = 'app_store' AND original_transaction_id = \(original)
                        """)
                    var found: Bool?
                    for try await row in rows.decode(Bool?.self) { found = row }
                    return found
                }
            }, until: { $0 == expected })
    }

    @Test("A DID_CHANGE_RENEWAL_STATUS with only signedRenewalInfo ends processed and reaches the subscription")
    func renewalInfoAlone() async throws {
        try await notifications.withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            try await harness.importCatalog(Self.products)
            let original = "2000" + UUID().uuidString.prefix(12)
            let bought = try await harness.purchase(
                signedTransaction: try harness.signedTransaction(
                    id: original, productID: "com.example.garden.pro", type: .autoRenewable,
                    expires: Date().addingTimeInterval(30 * 86_400)))
            #expect(bought.status == .ok, "\(bought.text)")
            #expect(try await willRenew(original, database: database, becomes: nil) == nil)

            let signer = try ES256Signer(chain: harness.chain)
            let renewal = AppleRenewalInfoPayload(
                originalTransactionId: original, productId: "com.example.garden.pro",
                autoRenewProductId: "com.example.garden.pro", autoRenewStatus: 0,
                signedDate: Date().appleMilliseconds, environment: "Sandbox")
            let uuid = UUID().uuidString.lowercased()
            let signed = try signer.sign(
                AppleNotificationPayload(
                    notificationType: AppleNotificationType.didChangeRenewalStatus.rawValue,
                    subtype: AppleNotificationSubtype.autoRenewDisabled.rawValue, notificationUUID: uuid,
                    data: .init(
                        bundleId: VerifierHarness.bundleID, environment: "Sandbox",
                        signedRenewalInfo: try signer.sign(renewal), status: 1),
                    signedDate: Date().appleMilliseconds))
            #expect(try await notifications.post(harness, signed, app: harness.appID).status == .ok)
            let (state, error) = try await notifications.settledState(id: uuid, database: database)
            #expect(state == "processed", "\(error ?? "")")
            #expect(try await willRenew(original, database: database, becomes: false) == false)
        }
    }

    /// A transaction's JSON as Xcode's StoreKit Testing writes it: dates with fractional milliseconds.
    static func fractionalTransactionJSON(id: String, signedAt: Date) -> [UInt8] {
        let signed = "\(signedAt.appleMilliseconds).485"
        let purchase = "\(signedAt.appleMilliseconds - 60_000).056"
        return Array(
            """
            {"transactionId":"\(id)","originalTransactionId":"\(id)","bundleId":"\(VerifierHarness.bundleID)",
            "productId":"com.example.garden.extra","purchaseDate":\(purchase),"originalPurchaseDate":\(purchase),
            "quantity":1,"type":"Non-Consumable","inAppOwnershipType":"PURCHASED","signedDate":\(signed),
            "environment":"Sandbox","storefront":"USA","currency":"USD","price":1990}
            """.utf8)
    }

    @Test(
        "Signed dates with fractional milliseconds are read as their whole milliseconds, in purchases and notifications"
    )
    func fractionalDates() async throws {
        try await notifications.withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            let signer = try ES256Signer(chain: harness.chain)
            let now = Date()
            let id = "2000" + UUID().uuidString.prefix(12)
            let jws = try signer.sign(payloadJSON: Self.fractionalTransactionJSON(id: id, signedAt: now))
            let bought = try await harness.purchase(signedTransaction: jws)
            #expect(bought.status == .ok, "\(bought.text)")
            let transaction = try #require(try bought.decode(PurchaseResponse.self).transactions.first)
            #expect(transaction.purchaseDate == Date(storeMilliseconds: now.appleMilliseconds - 60_000))

            // A notification whose own signedDate and inner transaction carry fractions: recorded, then processed
            // (the worker decodes the stored payload again).
            let uuid = UUID().uuidString.lowercased()
            let inner = try signer.sign(
                payloadJSON: Self.fractionalTransactionJSON(id: "2000" + UUID().uuidString.prefix(12), signedAt: now))
            let notification = """
                {"notificationType":"ONE_TIME_CHARGE","notificationUUID":"\(uuid)","version":"2.0",
                "signedDate":\(now.appleMilliseconds).999,"data":{"bundleId":"\(VerifierHarness.bundleID)",
                "environment":"Sandbox","signedTransactionInfo":"\(inner)"}}
                """
            let signed = try signer.sign(payloadJSON: Array(notification.utf8))
            let posted = try await notifications.post(harness, signed, app: harness.appID)
            #expect(posted.status == .ok, "\(posted.text)")
            let (state, error) = try await notifications.settledState(id: uuid, database: database)
            #expect(state == "processed", "\(error ?? "")")
        }
    }
}
