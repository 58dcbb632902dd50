import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// Every App Store Server Notification V2 type and subtype Apple documents, each in the shape that type has (`data`,
/// `summary`, `externalPurchaseToken`, `appData`), correctly signed: answered 200, recorded once, processed.
@Suite("App Store Server Notifications of every kind") struct AppleNotificationKindsTests {
    let notifications = AppleNotificationTests()

    /// Each type with the subtypes Apple documents for it (`nil`: the type without one).
    static let kinds: [(AppleNotificationType, [AppleNotificationSubtype?])] = [
        (.consumptionRequest, [nil]),
        (.didChangeRenewalPref, [.upgrade, .downgrade, nil]),
        (.didChangeRenewalStatus, [.autoRenewEnabled, .autoRenewDisabled]),
        (.didFailToRenew, [.gracePeriod, nil]),
        (.didRenew, [.billingRecovery, nil]),
        (.expired, [.voluntary, .billingRetry, .priceIncrease, .productNotForSale]),
        (.externalPurchaseToken, [.unreported, .activeTokenReminder, .created]),
        (.gracePeriodExpired, [nil]),
        (.metadataUpdate, [nil]),
        (.migration, [nil]),
        (.offerRedeemed, [.initialBuy, .resubscribe, .upgrade, .downgrade, nil]),
        (.oneTimeCharge, [nil]),
        (.priceChange, [nil]),
        (.priceIncrease, [.pending, .accepted]),
        (.refund, [nil]),
        (.refundDeclined, [nil]),
        (.refundReversed, [nil]),
        (.renewalExtended, [nil]),
        (.renewalExtension, [.summary, .failure]),
        (.rescindConsent, [nil]),
        (.revoke, [nil]),
        (.subscribed, [.initialBuy, .resubscribe]),
        (.test, [nil]),
    ]

    @Test("The table names every type and subtype Apple documents")
    func tableIsComplete() {
        #expect(Set(Self.kinds.map(\.0)) == Set(AppleNotificationType.allCases))
        #expect(Set(Self.kinds.flatMap(\.1).compactMap { $0 }) == Set(AppleNotificationSubtype.allCases))
    }

    /// A signed notification of `type` in the shape Apple sends it.
    static func notification(
        _ harness: VerifierHarness, type: AppleNotificationType, subtype: AppleNotificationSubtype?,
        uuid: String = UUID().uuidString.lowercased(), environment: AppleEnvironment = .sandbox
    ) throws -> String {
        let signer = try ES256Signer(chain: harness.chain)
        let now = Date().appleMilliseconds
        var payload = AppleNotificationPayload(
            notificationType: type.rawValue, subtype: subtype?.rawValue, notificationUUID: uuid, signedDate: now)
        switch (type, subtype) {
        case (.test, _):
            payload.data = .init(bundleId: VerifierHarness.bundleID, environment: environment.rawValue)
        case (.renewalExtension, .summary):
            payload.summary = .init(
                requestIdentifier: UUID().uuidString, environment: environment.rawValue,
                bundleId: VerifierHarness.bundleID, productId: "com.example.garden.pro",
                storefrontCountryCodes: ["USA"], succeededCount: 3, failedCount: 0)
        case (.externalPurchaseToken, _):
            payload.externalPurchaseToken = .init(
                externalPurchaseId: (environment == .sandbox ? "SANDBOX_" : "") + UUID().uuidString,
                tokenCreationDate: now - 60_000, appAppleId: nil, bundleId: VerifierHarness.bundleID)
        case (.rescindConsent, _):
            let appTransaction = AppleAppTransactionPayload(
                receiptType: environment.rawValue, bundleId: VerifierHarness.bundleID, applicationVersion: "1",
                receiptCreationDate: now, originalPurchaseDate: now - 86_400_000, originalApplicationVersion: "1",
                appTransactionId: "70418913\(Int.random(in: 1_000_000...9_999_999))", originalPlatform: "iOS")
            payload.appData = .init(
                bundleId: VerifierHarness.bundleID, environment: environment.rawValue,
                signedAppTransactionInfo: try signer.sign(appTransaction))
        case (.oneTimeCharge, _), (.refund, _), (.refundDeclined, _), (.refundReversed, _), (.revoke, _),
            (.consumptionRequest, _):
            payload.data = .init(
                bundleId: VerifierHarness.bundleID, bundleVersion: "1", environment: environment.rawValue,
                signedTransactionInfo: try harness.signedTransaction(productID: "com.example.garden.coins"),
                consumptionRequestReason: type == .consumptionRequest ? "UNINTENDED_PURCHASE" : nil)
        default:
            let transaction = try harness.signedTransaction(
                productID: "com.example.garden.pro", type: .autoRenewable, expires: Date().addingTimeInterval(86_400))
            let renewal = AppleRenewalInfoPayload(
                originalTransactionId: "2000" + UUID().uuidString.prefix(12), productId: "com.example.garden.pro",
                autoRenewProductId: "com.example.garden.pro", autoRenewStatus: 1, signedDate: now,
                environment: environment.rawValue)
            payload.data = .init(
                bundleId: VerifierHarness.bundleID, bundleVersion: "1", environment: environment.rawValue,
                signedTransactionInfo: transaction, signedRenewalInfo: try signer.sign(renewal), status: 1)
        }
        return try signer.sign(payload)
    }

    @Test("Every type and subtype is answered 200, recorded once (a second post is a duplicate) and processed")
    func everyKind() async throws {
        try await notifications.withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            var sent: [(String, String)] = []
            for (type, subtypes) in Self.kinds {
                for subtype in subtypes {
                    let name = "\(type.rawValue) \(subtype?.rawValue ?? "-")"
                    let uuid = UUID().uuidString.lowercased()
                    let signed = try Self.notification(harness, type: type, subtype: subtype, uuid: uuid)
                    let first = try await notifications.post(harness, signed, app: harness.appID)
                    #expect(first.status == .ok, "\(name): \(first.text)")
                    #expect(try first.violations(.post, "/v1/notifications/apple") == [], "\(name)")
                    let receipt = try first.decode([String: AnyCodableValue].self)
                    #expect(receipt["duplicate"] == .bool(false), "\(name)")
                    let again = try await notifications.post(harness, signed, app: harness.appID)
                    #expect(again.status == .ok, "\(name): \(again.text)")
                    #expect(try again.decode([String: AnyCodableValue].self)["duplicate"] == .bool(true), "\(name)")
                    sent.append((name, uuid))
                }
            }
            for (name, uuid) in sent {
                let (state, error) = try await notifications.settledState(id: uuid, database: database)
                #expect(state == "processed", "\(name): \(error ?? "")")
            }
            let recorded = try await TestDatabase.withClient(database) { client in
                let rows = try await client.query(
                    "SELECT count(*)::int FROM verifier.notifications WHERE app_id = \(harness.appID)")
                var count = 0
                for try await value in rows.decode(Int.self) { count = value }
                return count
            }
            #expect(recorded == sent.count)
        }
    }

    @Test("RESCIND_CONSENT and EXTERNAL_PURCHASE_TOKEN take the app from appData and externalPurchaseToken")
    func appFromEveryPart() async throws {
        try await notifications.withOwnDatabase { harness, _ in
            // A production-only app: an external purchase token without the SANDBOX prefix is production's, one
            // with it the sandbox's (Apple's rule), which this app refuses.
            #expect(try await harness.configureApple(["environments": ["production"]]).status == .ok)
            let production = try Self.notification(
                harness, type: .externalPurchaseToken, subtype: .unreported, environment: .production)
            #expect(try await notifications.post(harness, production, app: harness.appID).status == .ok)
            let sandbox = try Self.notification(harness, type: .externalPurchaseToken, subtype: .unreported)
            let refused = try await notifications.post(harness, sandbox, app: harness.appID)
            #expect(refused.status == .unprocessableContent && refused.problemCode == "wrong_environment")
            let consent = try Self.notification(harness, type: .rescindConsent, subtype: nil, environment: .production)
            #expect(try await notifications.post(harness, consent, app: harness.appID).status == .ok)
            // Found by its bundle id alone, without ?app=, when one app has it.
            let foreign = try ES256Signer(chain: harness.chain).sign(
                AppleNotificationPayload(
                    notificationType: "RESCIND_CONSENT", notificationUUID: UUID().uuidString,
                    signedDate: Date().appleMilliseconds,
                    appData: .init(bundleId: "com.example.nobody", environment: "Production")))
            let unknown = try await notifications.post(harness, foreign, app: nil)
            #expect(unknown.status == .notFound && unknown.problemCode == "unknown_app", "\(unknown.text)")
        }
    }

    @Test("Consent rescinded and external purchase tokens become one app event each, however often Apple sends them")
    func appEvents() async throws {
        try await notifications.withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            let consentID = UUID().uuidString.lowercased()
            let consent = try Self.notification(harness, type: .rescindConsent, subtype: nil, uuid: consentID)
            let tokenID = UUID().uuidString.lowercased()
            let token = try Self.notification(
                harness, type: .externalPurchaseToken, subtype: .unreported, uuid: tokenID)
            for signed in [consent, token, consent, token] {
                #expect(try await notifications.post(harness, signed, app: harness.appID).status == .ok)
            }
            #expect(try await notifications.settledState(id: consentID, database: database).0 == "processed")
            #expect(try await notifications.settledState(id: tokenID, database: database).0 == "processed")
            let events = try await harness.events()
            let types = events.compactMap { $0["type"] as? String }.sorted()
            #expect(types == ["consent_rescinded", "external_purchase_token"], "\(events)")
            let listed = try await harness.send(to: harness.entitlements, .get, "/v1/admin/events")
            #expect(try listed.violations(.get, "/v1/admin/events") == [])
            let rescinded = try #require(events.first { $0["type"] as? String == "consent_rescinded" })
            #expect(rescinded["app_user_id"] is NSNull)
            #expect(rescinded["environment"] as? String == "sandbox")
            let data = rescinded["data"] as? [String: Any]
            #expect((data?["app_transaction_id"] as? String)?.hasPrefix("70418913") == true)
            #expect(data?["store"] as? String == "app_store")
            let external = try #require(events.first { $0["type"] as? String == "external_purchase_token" })
            let tokenData = external["data"] as? [String: Any]
            #expect((tokenData?["external_purchase_id"] as? String)?.hasPrefix("SANDBOX_") == true)
            #expect(tokenData?["token_creation_date"] is String)
            #expect(tokenData?["subtype"] as? String == "UNREPORTED")

            // The worker publishing the same facts again (a retry after a lost answer) writes nothing new.
            let again = AppEventsRequest(events: [
                AppEvent(
                    kind: .consentRescinded, key: "app_store:\(consentID)", store: .appStore, environment: .sandbox)
            ])
            let republished = try await harness.send(
                to: harness.entitlements, .post, "/internal/v1/app-events", json: try TestJSON.encode(again))
            #expect(republished.status == .ok, "\(republished.text)")
            #expect(try republished.decode(AppEventsResponse.self).published == 0)
            #expect(try await harness.events().count == 2)
        }
    }

    @Test("A RESCIND_CONSENT whose app transaction is forged or another app's fails, with the reason")
    func forgedAppTransaction() async throws {
        try await notifications.withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            let stranger = try SigningChain.generate(SigningChain.Options(name: "Stranger"))
            let forged = try ES256Signer(chain: stranger).sign(
                AppleAppTransactionPayload(
                    receiptType: "Sandbox", bundleId: VerifierHarness.bundleID,
                    receiptCreationDate: Date().appleMilliseconds, appTransactionId: "1"))
            let uuid = UUID().uuidString.lowercased()
            let signed = try ES256Signer(chain: harness.chain).sign(
                AppleNotificationPayload(
                    notificationType: "RESCIND_CONSENT", notificationUUID: uuid, signedDate: Date().appleMilliseconds,
                    appData: .init(
                        bundleId: VerifierHarness.bundleID, environment: "Sandbox", signedAppTransactionInfo: forged)))
            #expect(try await notifications.post(harness, signed, app: harness.appID).status == .ok)
            let (state, error) = try await notifications.settledState(id: uuid, database: database)
            #expect(state == "failed")
            #expect(error?.hasPrefix("untrusted_chain") == true, "\(error ?? "")")
            #expect(try await harness.events().isEmpty)
        }
    }
}
