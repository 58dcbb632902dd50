import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// Every kind of JWS the sandbox signs, decoded as a raw JSON object and held to the fields Apple documents
/// (``AppleDocumentedFields``): each field that applies is there, and no key Apple does not document.
@Suite struct AppleFieldListTests {
    /// A payload checked: where it came from and its JSON object.
    struct Checked {
        var kind: String
        var object: [String: Any]
    }

    @Test func everyKindOfSandboxJWSHasExactlyApplesFields() async throws {
        try await NotificationWorld.run { world in
            let sandbox = world.sandbox
            let token = "3b241101-e2bb-4255-8caf-4136c566a962"
            let consumable = try await sandbox.buyApple()
            let nonConsumable = try await sandbox.buyApple([
                "product_id": "garden.pro", "type": "Non-Consumable", "app_account_token": token,
            ])
            _ = try await sandbox.buyApple(["product_id": "season.pass", "type": "Non-Renewing Subscription"])
            let monthly = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
                "app_account_token": token, "offer_type": 1, "offer_discount_type": "FREE_TRIAL",
                "offer_period": "P1W",
            ])
            _ = try await sandbox.buyApple([
                "product_id": "garden.yearly", "type": "Auto-Renewable Subscription", "period": "P1Y",
                "original_transaction_id": monthly.transactionId, "app_account_token": token,
            ])
            try await world.control(.post, "/sandbox/apple/transactions/\(consumable.transactionId)/refund")
            try await world.control(.post, "/sandbox/apple/transactions/\(nonConsumable.transactionId)/revoke")
            let notifications: [[String: Any]] = [
                ["type": "TEST", "bundle_id": "com.example.garden"],
                [
                    "type": "CONSUMPTION_REQUEST", "transaction_id": consumable.transactionId,
                    "consumption_request_reason": "UNINTENDED_PURCHASE",
                ],
                [
                    "type": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "bundle_id": "com.example.garden",
                    "product_id": "garden.monthly",
                ],
            ]
            for body in notifications {
                try await world.control(.post, "/sandbox/notifications/apple", json: body, status: .created)
            }
            try await world.control(
                .post, "/sandbox/notifications/apple/rescind-consent",
                json: ["bundle_id": "com.example.garden", "app_account_token": token], status: .created)
            try await world.control(
                .post, "/sandbox/notifications/apple/external-purchase-token",
                json: ["bundle_id": "com.example.garden"], status: .created)
            let app = try await world.control(
                .post, "/sandbox/apple/app-transactions",
                json: [
                    "bundle_id": "com.example.garden", "app_account_token": token, "original_application_version": "3",
                ])
            let signedApp = try #require(app["signed_app_transaction"] as? String)

            // ONE_TIME_CHARGE x3, SUBSCRIBED, DID_CHANGE_RENEWAL_PREF, REFUND, REVOKE, and the six above.
            let received = try await world.inbox.wait(for: 12, at: "/apple")
            var checked: [Checked] = [Checked(kind: "app transaction", object: try jwsPayloadObject(signedApp))]
            var kinds: Set<String> = []
            for request in received {
                let body = try JSONDecoder().decode(AppleResponseBodyV2.self, from: Data(request.body.utf8))
                let notification = try jwsPayloadObject(body.signedPayload)
                let type = try #require(notification["notificationType"] as? String)
                kinds.insert(type)
                checked.append(Checked(kind: "notification \(type)", object: notification))
                let parts = ["data", "summary", "appData", "externalPurchaseToken"].filter { notification[$0] != nil }
                #expect(parts.count == 1, "\(type) carries \(parts)")
                if let data = notification["data"] as? [String: Any] {
                    checked.append(Checked(kind: "\(type) data", object: data))
                    if let signed = data["signedTransactionInfo"] as? String {
                        checked.append(Checked(kind: "\(type) transaction", object: try jwsPayloadObject(signed)))
                    }
                    if let signed = data["signedRenewalInfo"] as? String {
                        checked.append(Checked(kind: "\(type) renewal info", object: try jwsPayloadObject(signed)))
                    }
                }
                if let summary = notification["summary"] as? [String: Any] {
                    checked.append(Checked(kind: "\(type) summary", object: summary))
                }
                if let appData = notification["appData"] as? [String: Any] {
                    checked.append(Checked(kind: "\(type) appData", object: appData))
                    let signed = try #require(appData["signedAppTransactionInfo"] as? String)
                    checked.append(Checked(kind: "\(type) app transaction", object: try jwsPayloadObject(signed)))
                }
                if let token = notification["externalPurchaseToken"] as? [String: Any] {
                    checked.append(Checked(kind: "\(type) externalPurchaseToken", object: token))
                    #expect((token["externalPurchaseId"] as? String)?.hasPrefix("SANDBOX") == true)
                }
            }
            #expect(
                kinds == [
                    "ONE_TIME_CHARGE", "SUBSCRIBED", "DID_CHANGE_RENEWAL_PREF", "REFUND", "REVOKE", "TEST",
                    "CONSUMPTION_REQUEST", "RENEWAL_EXTENSION", "RESCIND_CONSENT", "EXTERNAL_PURCHASE_TOKEN",
                ])

            var problems: [String] = []
            var appTransactionIds: [String: Set<String>] = [:]
            for payload in checked {
                let list = Self.list(for: payload.kind)
                problems += list.problems(payload.object, kind: payload.kind)
                problems += Self.conditionalProblems(payload)
                if let id = payload.object["appTransactionId"] as? String {
                    let buyer =
                        (payload.object["appAccountToken"] as? String)
                        ?? (payload.kind.hasSuffix("app transaction") ? token : "other")
                    appTransactionIds[buyer, default: []].insert(id)
                }
            }
            #expect(problems.isEmpty, "\(problems)")
            // The buyer's transactions, renewal infos and app transactions share one appTransactionId.
            #expect(appTransactionIds[token]?.count == 1, "\(appTransactionIds)")
            #expect(checked.filter { $0.kind.hasSuffix("transaction") }.count >= 10)
            #expect(checked.contains { $0.kind.hasSuffix("renewal info") })
        }
    }

    static func list(for kind: String) -> AppleDocumentedFields {
        if kind.hasSuffix("app transaction") { return .appTransaction }
        if kind.hasSuffix("transaction") { return .transaction }
        if kind.hasSuffix("renewal info") { return .renewalInfo }
        if kind.hasSuffix(" data") { return .notificationData }
        if kind.hasSuffix("summary") { return .notificationSummary }
        if kind.hasSuffix("appData") { return .notificationAppData }
        if kind.hasSuffix("externalPurchaseToken") { return .externalPurchaseToken }
        return .notification
    }

    /// The `when` fields whose condition the payload itself shows.
    static func conditionalProblems(_ payload: Checked) -> [String] {
        let object = payload.object
        var required: [String] = []
        if payload.kind.hasSuffix(" transaction") && !payload.kind.hasSuffix("app transaction") {
            if object["type"] as? String == "Auto-Renewable Subscription" {
                required += ["webOrderLineItemId", "subscriptionGroupIdentifier", "expiresDate"]
            }
            if object["revocationDate"] != nil { required += ["revocationReason", "revocationType"] }
            if object["offerType"] != nil { required += ["offerDiscountType", "offerPeriod"] }
        }
        if payload.kind.hasSuffix(" data"), object["signedRenewalInfo"] != nil { required += ["status"] }
        if payload.kind.hasSuffix(" data"), object["signedTransactionInfo"] != nil { required += ["bundleVersion"] }
        if payload.kind == "notification CONSUMPTION_REQUEST data" { required += ["consumptionRequestReason"] }
        return required.filter { object[$0] == nil }.map { "\(payload.kind): missing \($0)" }
    }
}
