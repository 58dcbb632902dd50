import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// Issue 34: every event names its customer, in the events API and in its webhook, whoever told the change: the
/// customer's own request, a store notification that names no customer (a refund, a revocation, a reversal), or the
/// subscriptions service's relay.
@Suite("Every event names its customer")
struct EventCustomerTests {
    typealias E = EntitlementsFixtures

    /// How one event type is produced, and the customer its event must name (`nil`: an app-level event, which names
    /// none).
    struct Case: Sendable, CustomStringConvertible {
        var type: EventType
        var customer: String?
        var produce: @Sendable (EntitlementsHarness) async throws -> Void
        var description: String { type.rawValue }
    }

    /// One case per event type, each for a customer of its own.
    static let cases: [Case] = [
        Case(type: .initialPurchase, customer: "c-initial") { try await $0.bought("garden", by: "c-initial") },
        Case(type: .nonRenewingPurchase, customer: "c-pass") { try await $0.bought("pro_year", by: "c-pass") },
        Case(type: .consumablePurchase, customer: "c-seeds") { try await $0.bought("seeds", by: "c-seeds") },
        Case(type: .consumed, customer: "c-consumed") { harness in
            try await harness.bought("seeds", by: "c-consumed")
            try harness.require(try await harness.consume("c-consumed"), .ok)
        },
        Case(type: .transfer, customer: "c-transfer") { harness in
            let garden = try await harness.bought("garden", by: "c-transfer-from")
            _ = try await harness.applied([garden], user: "c-transfer")
        },
        Case(type: .refund, customer: "c-refund") { harness in
            var garden = try await harness.bought("garden", by: "c-refund")
            garden.revocationDate = whole(Date())
            garden.revocationReason = .appIssue
            try await harness.storeNews([garden])
        },
        Case(type: .revocation, customer: "c-family") { harness in
            var shared = E.transaction(product: "garden")
            shared.ownershipType = .familyShared
            _ = try await harness.applied([shared], user: "c-family")
            shared.revocationDate = whole(Date())
            shared.revocationReason = .other
            try await harness.storeNews([shared])
        },
        Case(type: .refundReversed, customer: "c-reversed") { harness in
            var seeds = try await harness.bought("seeds", by: "c-reversed")
            seeds.revocationDate = whole(Date().addingTimeInterval(-30))
            seeds.revocationReason = .other
            try await harness.storeNews([seeds])
            seeds.revocationReversedAt = whole(Date())
            try await harness.storeNews([seeds])
        },
        Case(type: .promotionalGrant, customer: "c-grant") { harness in
            try harness.require(try await harness.grant("vip", to: "c-grant"), .created)
        },
        Case(type: .promotionalGrantRevoked, customer: "c-ungrant") { harness in
            let created = try await harness.grant("vip", to: "c-ungrant")
            let grant = try harness.json(created)["grant"] as? [String: Any]
            let id = try #require(grant?["grant_id"] as? String)
            try harness.require(try await harness.send(.delete, "/v1/customers/c-ungrant/grants/\(id)"), .ok)
        },
        Case(type: .alias, customer: "c-alias") { harness in
            try await harness.bought("garden", by: "c-alias")
            try harness.require(try await harness.link("c-alias-other", to: "c-alias"), .ok)
        },
        Case(type: .subscriptionStarted, customer: "c-started") { harness in
            try await harness.subscribed([period()], user: "c-started")
        },
        Case(type: .renewal, customer: "c-renewal") { harness in
            let first = period(start: -7_200, end: 86_400)
            try await harness.subscribed([first], user: "c-renewal")
            try await harness.subscribed([period(original: first, start: -3_600, end: 30 * 86_400)])
        },
        Case(type: .cancellation, customer: "c-cancel") { harness in
            let bought = period()
            try await harness.subscribed([bought], user: "c-cancel")
            try await harness.subscribed([], renewals: [facts(bought, willRenew: false)])
        },
        Case(type: .uncancellation, customer: "c-uncancel") { harness in
            let bought = period()
            try await harness.subscribed([bought], user: "c-uncancel")
            try await harness.subscribed([], renewals: [facts(bought, at: -10, willRenew: false)])
            try await harness.subscribed([], renewals: [facts(bought, willRenew: true)])
        },
        Case(type: .billingIssue, customer: "c-billing") { harness in
            try await harness.fellIntoGrace("c-billing")
        },
        Case(type: .gracePeriodStarted, customer: "c-grace") { harness in
            try await harness.fellIntoGrace("c-grace")
        },
        Case(type: .expiration, customer: "c-expired") { harness in
            try await harness.subscribed([period(start: -2 * 86_400, end: -86_400)], user: "c-expired")
        },
        Case(type: .productChange, customer: "c-upgrade") { harness in
            let monthly = period()
            try await harness.subscribed([monthly], user: "c-upgrade")
            try await harness.subscribed([
                period(product: "pro_yearly", original: monthly, start: -10, end: 365 * 86_400)
            ])
        },
        Case(type: .trialStarted, customer: "c-trial") { harness in
            try await harness.subscribed([period(trial: true)], user: "c-trial")
        },
        Case(type: .trialConverted, customer: "c-converted") { harness in
            let trial = period(start: -8 * 86_400, end: -3_600, trial: true)
            try await harness.subscribed([trial], user: "c-converted")
            try await harness.subscribed([period(original: trial, start: -3_600, end: 30 * 86_400)])
        },
        Case(type: .trialExpired, customer: "c-trial-over") { harness in
            try await harness.subscribed([period(start: -8 * 86_400, end: -86_400, trial: true)], user: "c-trial-over")
        },
        Case(type: .consentRescinded, customer: nil) { harness in
            try await harness.publish(
                AppEvent(
                    kind: .consentRescinded, key: "app_store:consent", store: .appStore, environment: .sandbox,
                    appTransactionID: "704"))
        },
        Case(type: .externalPurchaseToken, customer: nil) { harness in
            try await harness.publish(
                AppEvent(
                    kind: .externalPurchaseToken, key: "app_store:token", store: .appStore, environment: .sandbox,
                    externalPurchaseID: "ext-1", tokenCreationDate: whole(Date()), subtype: "CREATED"))
        },
    ]

    @Test("The table covers every event type")
    func everyType() {
        #expect(Set(Self.cases.map(\.type)) == Set(EventType.allCases))
    }

    @Test("Each event names the customer it happened to, in the events API and in its webhook")
    func everyEventNamesItsCustomer() async throws {
        try await WebhookReceiver.run(.always(.ok)) { receiver in
            try await WebhookTests.run(environment: Self.fast) { harness in
                // The catalog's products, and an auto-renewable to upgrade to.
                let yearly = E.product("pro_yearly", type: .autoRenewable, entitlements: ["pro"])
                try harness.require(try await harness.importCatalog(E.products + [yearly]), .ok)
                _ = try await harness.configureWebhook(receiver.url)
                #expect(try await harness.putSettings(#"{"transfer_policy": "transfer"}"#).status == .ok)
                for item in Self.cases {
                    try await item.produce(harness)
                }
                // Subscription events arrive through the relay, in the background: wait for each case's (or for what
                // is there after the wait, for the expectations below to show).
                let events = try await eventually(
                    { try await harness.events() },
                    until: { events in
                        Self.cases.allSatisfy { item in
                            events.contains {
                                $0["type"] as? String == item.type.rawValue
                                    && $0["app_user_id"] as? String == item.customer
                            }
                        }
                    })
                for item in Self.cases {
                    let ofType = events.filter { $0["type"] as? String == item.type.rawValue }
                    #expect(!ofType.isEmpty, "no \(item.type.rawValue) event")
                    let named = ofType.map { $0["app_user_id"] as? String }
                    #expect(named.contains(item.customer), "\(item.type.rawValue) events name \(named)")
                }
                // No event of a customer leaves the customer out; only app-level events name none.
                let appLevel: Set<String> = [
                    EventType.consentRescinded.rawValue, EventType.externalPurchaseToken.rawValue,
                ]
                for event in events where !appLevel.contains(event["type"] as? String ?? "") {
                    #expect(event["app_user_id"] is String, "\(event["type"] ?? "?") names no customer")
                }

                // Each webhook says what the events API says.
                let ids = events.compactMap { $0["id"] as? String }
                try await eventually("every event is delivered") {
                    for id in ids {
                        if await receiver.requests(for: id).isEmpty { return false }
                    }
                    return true
                }
                for event in events {
                    let id = try #require(event["id"] as? String)
                    let received = try #require(await receiver.requests(for: id).first)
                    let body = try TestJSON.object(received.body)
                    #expect(
                        body["app_user_id"] as? String == event["app_user_id"] as? String,
                        "the \(event["type"] ?? "?") webhook names \(body["app_user_id"] ?? "nobody")")
                }
            }
        }
    }

    /// The relay and the expiry sweep at test speed.
    static let fast = ["SHOPKEEPER_SUBSCRIPTION_RELAY_MS": "50", "SHOPKEEPER_EXPIRY_SWEEP_MS": "50"]

    /// An App Store period of the auto-renewable `product` from `start` to `end` seconds from now (whole seconds), a
    /// renewal of `original` when given.
    static func period(
        product: String = "pro_monthly", original: StoreTransaction? = nil, start: TimeInterval = -60,
        end: TimeInterval = 30 * 86_400, trial: Bool = false
    ) -> StoreTransaction {
        let id = UUID().uuidString
        return StoreTransaction(
            store: .appStore, environment: .sandbox, transactionID: id,
            originalTransactionID: original?.originalTransactionID ?? id, storeProductID: "com.test.\(product)",
            type: nil, quantity: 1, purchaseDate: whole(Date().addingTimeInterval(start)),
            expiresDate: whole(Date().addingTimeInterval(end)),
            offer: trial ? StoreOffer(type: "introductory", discountType: "free_trial") : nil, priceMilliunits: 990,
            currency: "EUR")
    }

    /// The store's renewal facts of `subscription`, observed `at` seconds from now.
    static func facts(
        _ subscription: StoreTransaction, at seconds: TimeInterval = 0, willRenew: Bool? = nil,
        grace: Date? = nil, billingRetry: Bool? = nil
    ) -> SubscriptionRenewalFacts {
        SubscriptionRenewalFacts(
            store: .appStore, originalTransactionID: subscription.originalTransactionID,
            observedAt: whole(Date().addingTimeInterval(seconds)), willRenew: willRenew,
            gracePeriodExpiresDate: grace, isInBillingRetry: billingRetry)
    }

    static func whole(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension EntitlementsHarness {
    /// A new purchase of `product` applied for `user` (requiring 200); returns its transaction.
    @discardableResult
    fileprivate func bought(_ product: String, by user: String) async throws -> StoreTransaction {
        let transaction = EntitlementsFixtures.transaction(product: product)
        _ = try await applied([transaction], user: user)
        return transaction
    }

    /// Store news about purchases (a notification: no customer presents them), requiring 200.
    fileprivate func storeNews(_ transactions: [StoreTransaction]) async throws {
        _ = try await applied(transactions, user: nil, device: nil, source: .notification)
    }

    /// Subscription facts as the verifier hands them over: to the subscriptions service, then (transactions) to
    /// entitlements for `user`, or as store news when `user` is nil.
    fileprivate func subscribed(
        _ transactions: [StoreTransaction], renewals: [SubscriptionRenewalFacts] = [], user: String? = nil
    ) async throws {
        let path = "/internal/v1/apply"
        let json = try TestJSON.encode(
            SubscriptionApplyRequest(
                source: user == nil ? .notification : .purchase, transactions: transactions, renewals: renewals))
        var headers = HTTPFields.signed(.post, path, appID: appID, body: json)
        headers[.contentType] = "application/json"
        let timeline = try await subscriptions.execute(
            uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: json))
        try require(timeline, .ok)
        guard !transactions.isEmpty else { return }
        _ = try await applied(
            transactions, user: user, device: user == nil ? nil : "device-1",
            source: user == nil ? .notification : .purchase)
    }

    /// A subscription whose period ended an hour ago, in billing retry within its grace period: `billing_issue`,
    /// then `grace_period_started`.
    fileprivate func fellIntoGrace(_ user: String) async throws {
        let ended = EventCustomerTests.period(start: -30 * 86_400, end: -3_600)
        let retrying = EventCustomerTests.facts(
            ended, at: -3_000, willRenew: true, grace: Date().addingTimeInterval(86_400), billingRetry: true)
        try await subscribed([ended], renewals: [retrying], user: user)
    }

    /// `POST /internal/v1/app-events` with one app-level fact, requiring 200.
    fileprivate func publish(_ event: AppEvent) async throws {
        try require(
            try await send(
                .post, "/internal/v1/app-events", json: try TestJSON.encode(AppEventsRequest(events: [event]))),
            .ok)
    }

    /// The app's events, newest first (at most 200).
    fileprivate func events() async throws -> [[String: Any]] {
        let response = try await send(.get, "/v1/admin/events?limit=200")
        try require(response, .ok)
        return try json(response)["events"] as? [[String: Any]] ?? []
    }

    /// Throws unless `answer` has `status`.
    func require(_ answer: any HTTPAnswer, _ status: HTTPResponse.Status) throws {
        guard answer.status == status else {
            throw HarnessError("answered \(answer.status), not \(status): \(String(buffer: answer.body))")
        }
    }
}
