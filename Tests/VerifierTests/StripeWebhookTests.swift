import Foundation
import HTTPTypes
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// `POST /v1/notifications/stripe` over real HTTP, on a database of its own (no other test's verifier takes its
/// events), with events signed as Stripe signs them and Stripe's API stood in for (``StripeStandIn``).
@Suite struct StripeWebhookTests {
    static let secret = "whsec_00000000000000000000000000000test"

    /// A verifier whose Stripe API is a stand-in, with an app selling `price_garden_extra` (non-consumable,
    /// entitlement `garden`) and `price_club_monthly` (auto-renewable, entitlement `club`), its Stripe credentials
    /// set.
    static func run(_ body: @Sendable @escaping (VerifierHarness, StripeStandIn, DatabaseSettings) async throws -> Void)
        async throws
    {
        try await StripeStandIn.run { standIn, url in
            try await TestDatabase.withFreshDatabase { database in
                try await VerifierHarness.run(
                    environment: ["DATABASE_URL": database.url, "SHOPKEEPER_STRIPE_API_URL": url.absoluteString]
                ) { harness in
                    try await harness.importCatalog([
                        product("garden_extra", type: "non_consumable", price: "price_garden_extra", grants: "garden"),
                        product("club_monthly", type: "auto_renewable", price: "price_club_monthly", grants: "club"),
                    ])
                    let configured = try await harness.configureStripe([
                        "secret_key": StripeClientTests.key, "webhook_secrets": [secret],
                    ])
                    guard configured.status == .ok else { throw HarnessFailure("stripe: \(configured.text)") }
                    try await body(harness, standIn, database)
                }
            }
        }
    }

    static func product(_ id: String, type: String, price: String, grants entitlement: String) -> [String: Any] {
        var product: [String: Any] = [
            "product_id": id, "type": type, "entitlements": [entitlement], "review_state": "approved",
            "cleared_for_sale": true, "default_locale": "en", "store_product_ids": ["stripe": price],
            "localizations": ["en": ["name": id]],
        ]
        if type == "auto_renewable" { product["group"] = "club" }
        return product
    }

    /// An event as Stripe sends it and as its API answers it.
    static func event(_ id: String, type: String, object: String, kind: String) throws -> Data {
        try StripeFixtures.object(
            StripeFixtures.event,
            changing: [
                "id": id, "type": type, "created": Int(Date().timeIntervalSince1970),
                "api_version": StripeAPIVersion.current, "data": ["object": ["id": object, "object": kind]],
            ])
    }

    /// Posts `body` signed with `secrets` at `signedAt` over a connection of its own.
    static func post(
        _ harness: VerifierHarness, _ body: Data, secrets: [String] = [secret], signedAt: Date = Date(),
        app: String?
    ) async throws -> ConcurrentHTTP.Answer {
        let header = StripeWebhookSignature.header(payload: body, secrets: secrets, timestamp: signedAt)
        return try await send(harness, body, signature: header, app: app)
    }

    /// Posts `body` with `signature` as the gateway forwards it (its internal signature added, no API key).
    static func send(_ harness: VerifierHarness, _ body: Data, signature: String, app: String?) async throws
        -> ConcurrentHTTP.Answer
    {
        let path = "/v1/notifications/stripe" + (app.map { "?app=\($0)" } ?? "")
        var headers = HTTPFields.signed(.post, path, appID: nil, body: body)
        headers[HTTPField.Name("Stripe-Signature")!] = signature
        headers[.contentType] = "application/json; charset=utf-8"
        return try await ConcurrentHTTP.send(port: harness.client.port ?? 0, .post, path, headers: headers, body: body)
    }

    /// Scripts a paid one-time Checkout Session `session` for `user` (PaymentIntent `intent`) and its event.
    static func scriptOneTimePurchase(_ standIn: StripeStandIn, event: String, session: String, intent: String)
        async throws -> Data
    {
        let body = try Self.event(event, type: "checkout.session.completed", object: session, kind: "checkout.session")
        await standIn.script(.get, "/v1/events/\(event)", .ok(body))
        await standIn.script(
            .get, "/v1/checkout/sessions/\(session)",
            .ok(
                try StripeFixtures.object(
                    StripeFixtures.checkoutSession,
                    changing: [
                        "id": session, "mode": "payment", "status": "complete", "payment_status": "paid",
                        "payment_intent": intent, "client_reference_id": "user_81", "livemode": false,
                        "line_items": [
                            "object": "list", "has_more": false,
                            "data": [
                                ["id": "li_1", "object": "item", "price": ["id": "price_garden_extra"], "quantity": 1]
                            ],
                        ],
                    ])))
        await standIn.script(
            .get, "/v1/payment_intents/\(intent)",
            .ok(
                try StripeFixtures.object(
                    StripeFixtures.paymentIntent,
                    changing: [
                        "id": intent, "status": "succeeded", "amount": 299, "amount_received": 299, "currency": "eur",
                        "livemode": false, "latest_charge": "ch_\(intent)",
                    ])))
        return body
    }

    /// The recorded transaction's customer and revocation, once `until` holds (or after 10 s).
    static func transaction(
        _ id: String, database: DatabaseSettings, until: @escaping @Sendable ((String?, Date?)?) -> Bool
    ) async throws -> (appUserID: String?, revoked: Date?)? {
        try await eventually(
            timeout: .seconds(10),
            {
                try await TestDatabase.withClient(database) { client in
                    let rows = try await client.query(
                        """
                        SELECT app_user_id, revocation_date FROM verifier.transactions
                        WHERE store = 'stripe' AND transaction_id = \(id) AND apply_state = 'applied'
                        """)
                    var found: (String?, Date?)?
                    for try await row in rows.decode((String?, Date?).self) { found = row }
                    return found
                }
            }, until: until
        ).map { (appUserID: $0.0, revoked: $0.1) }
    }

    static func count(_ sql: String, database: DatabaseSettings) async throws -> Int {
        try await TestDatabase.withClient(database) { client in
            var total = 0
            for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int.self) {
                total = value
            }
            return total
        }
    }

    @Test func aCheckoutReadBackFromStripeGrantsTheCustomerAndAFullRefundRevokes() async throws {
        try await Self.run { harness, standIn, database in
            let body = try await Self.scriptOneTimePurchase(standIn, event: "evt_buy", session: "cs_1", intent: "pi_1")
            let answer = try await Self.post(harness, body, app: harness.appID)
            #expect(answer.status == .ok, "\(answer.text)")
            let granted = try await Self.transaction("pi_1", database: database) { $0?.0 != nil }
            #expect(granted?.appUserID == "user_81")
            #expect(granted?.revoked == nil)
            let customer = try await harness.send(to: harness.entitlements, .get, "/v1/customers/user_81")
            #expect(customer.text.contains("garden"), "\(customer.text)")
            // Read back, never taken from the body: the event, the session, the PaymentIntent.
            let read = await standIn.requests.map(\.uri)
            #expect(read.contains("/v1/events/evt_buy"))
            #expect(read.contains("/v1/checkout/sessions/cs_1?expand%5B0%5D=line_items"))

            let refund = try Self.event("evt_refund", type: "charge.refunded", object: "ch_pi_1", kind: "charge")
            await standIn.script(.get, "/v1/events/evt_refund", .ok(refund))
            await standIn.script(
                .get, "/v1/charges/ch_pi_1",
                .ok(
                    try StripeFixtures.object(
                        StripeFixtures.charge,
                        changing: ["id": "ch_pi_1", "refunded": true, "amount_refunded": 299, "payment_intent": "pi_1"])
                ))
            await standIn.script(
                .get, "/v1/invoice_payments",
                .ok(Data(#"{"object":"list","data":[],"has_more":false,"url":"/v1/invoice_payments"}"#.utf8)))
            #expect(try await Self.post(harness, refund, app: harness.appID).status == .ok)
            let revoked = try await Self.transaction("pi_1", database: database) { $0?.1 != nil }
            #expect(revoked?.revoked != nil)
        }
    }

    /// A forged, tampered or re-timestamped signature is `400`, and nothing is recorded.
    @Test func forgedOrStaleSignaturesAreRefused() async throws {
        try await Self.run { harness, standIn, database in
            let body = try await Self.scriptOneTimePurchase(standIn, event: "evt_x", session: "cs_x", intent: "pi_x")
            let forged = try await Self.post(
                harness, body, secrets: ["whsec_00000000000000000000000000000fake"], app: harness.appID)
            #expect(forged.status == .badRequest)
            #expect(forged.headers[.contentType] == "application/problem+json")
            #expect(forged.text.contains("invalid_signature"))
            var tampered = body
            tampered.append(contentsOf: Array(" ".utf8))
            let header = StripeWebhookSignature.header(payload: body, secrets: [Self.secret], timestamp: Date())
            let changed = try await Self.send(harness, tampered, signature: header, app: nil)
            #expect(changed.status == .badRequest)
            let stale = try await Self.post(harness, body, signedAt: Date().addingTimeInterval(-301), app: nil)
            #expect(stale.status == .badRequest)
            #expect(stale.text.contains("older than the tolerance"))
            #expect(try await Self.count("SELECT count(*)::int FROM verifier.notifications", database: database) == 0)
            #expect(await standIn.requests.isEmpty)
            // Without ?app= the app's secrets still find it.
            #expect(try await Self.post(harness, body, app: nil).status == .ok)
        }
    }

    /// The same event delivered 50 times at once is recorded once and granted once.
    @Test func theSameEventFiftyTimesAtOnceIsRecordedOnce() async throws {
        try await Self.run { harness, standIn, database in
            let body = try await Self.scriptOneTimePurchase(standIn, event: "evt_50", session: "cs_50", intent: "pi_50")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { Int(try await Self.post(harness, body, app: harness.appID).status.code) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            _ = try await Self.transaction("pi_50", database: database) { $0?.0 != nil }
            #expect(
                try await Self.count(
                    "SELECT count(*)::int FROM verifier.notifications WHERE store = 'stripe'", database: database) == 1)
            #expect(
                try await Self.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE store = 'stripe'", database: database) == 1)
            #expect(await standIn.requests.filter { $0.uri == "/v1/events/evt_50" }.count == 1)
        }
    }

    /// An event Stripe does not confirm grants nothing; Stripe unreachable answers 503 and the event is processed
    /// when Stripe sends it again; an event of a type Shopkeeper does not use is recorded and answered 200.
    @Test func unconfirmedEventsGrantNothingAndAnOutageIsRetried() async throws {
        try await Self.run { harness, standIn, database in
            let unknown = try Self.event(
                "evt_missing", type: "checkout.session.completed", object: "cs_m", kind: "checkout.session")
            #expect(try await Self.post(harness, unknown, app: harness.appID).status == .ok)
            let state = try await AppleNotificationTests().settledState(id: "evt_missing", database: database)
            #expect(state.0 == "failed")
            #expect(state.1?.contains("stripe_request_refused") == true, "\(state.1 ?? "")")

            let body = try await Self.scriptOneTimePurchase(standIn, event: "evt_down", session: "cs_d", intent: "pi_d")
            await standIn.script(
                .get, "/v1/events/evt_down", .error(.serviceUnavailable, type: "api_error", message: "down"))
            let down = try await Self.post(harness, body, app: harness.appID)
            #expect(down.status == .serviceUnavailable, "\(down.text)")
            #expect(down.text.contains("store_unavailable"))
            #expect(
                try await Self.count(
                    "SELECT count(*)::int FROM verifier.transactions WHERE transaction_id = 'pi_d'", database: database)
                    == 0)
            await standIn.script(.get, "/v1/events/evt_down", .ok(body))
            // Stripe's retry (or the worker's) processes it.
            _ = try? await Self.post(harness, body, app: harness.appID)
            #expect(try await Self.transaction("pi_d", database: database) { $0?.0 != nil }?.appUserID == "user_81")

            let ignored = try Self.event("evt_plan", type: "plan.created", object: "price_1", kind: "plan")
            await standIn.script(.get, "/v1/events/evt_plan", .ok(ignored))
            #expect(try await Self.post(harness, ignored, app: harness.appID).status == .ok)
            #expect(
                try await AppleNotificationTests().settledState(id: "evt_plan", database: database).0 == "processed")
        }
    }

    /// A paid invoice is a period of the subscription, granted to the customer its metadata names.
    @Test func aPaidInvoiceGrantsItsSubscriptionPeriod() async throws {
        try await Self.run { harness, standIn, database in
            let now = Int(Date().timeIntervalSince1970)
            let body = try Self.event("evt_inv", type: "invoice.paid", object: "in_1", kind: "invoice")
            await standIn.script(.get, "/v1/events/evt_inv", .ok(body))
            await standIn.script(
                .get, "/v1/invoices/in_1",
                .ok(
                    try StripeFixtures.object(
                        StripeFixtures.invoice,
                        changing: [
                            "id": "in_1", "status": "paid", "currency": "usd", "amount_paid": 499, "livemode": false,
                            "parent": [
                                "type": "subscription_details", "subscription_details": ["subscription": "sub_1"],
                            ],
                            "lines.data.0.period": ["start": now - 60, "end": now + 30 * 86_400],
                            "lines.data.0.pricing": [
                                "type": "price_details", "price_details": ["price": "price_club_monthly"],
                            ],
                        ])))
            await standIn.script(
                .get, "/v1/subscriptions/sub_1",
                .ok(
                    try StripeFixtures.object(
                        StripeFixtures.subscription,
                        changing: [
                            "id": "sub_1", "status": "active", "cancel_at_period_end": false, "cancel_at": NSNull(),
                            "canceled_at": NSNull(), "ended_at": NSNull(), "start_date": now - 60, "livemode": false,
                            "metadata": ["app_user_id": "user_82"], "items.data.0.price.id": "price_club_monthly",
                            "items.data.0.current_period_start": now - 60,
                            "items.data.0.current_period_end": now + 30 * 86_400,
                        ])))
            let answer = try await Self.post(harness, body, app: harness.appID)
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(try await Self.transaction("in_1", database: database) { $0?.0 != nil }?.appUserID == "user_82")
            let customer = try await harness.send(to: harness.entitlements, .get, "/v1/customers/user_82")
            #expect(customer.text.contains("club"), "\(customer.text)")
        }
    }
}
