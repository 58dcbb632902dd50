import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport

/// A ``NotifiedStoreWorld`` selling through the sandbox store's Stripe: the app's Stripe credentials are the
/// sandbox's (`sk_test_shopkeeper_sandbox`, `whsec_shopkeeper_sandbox`), the sandbox sells `price_garden_extra`
/// (one-time, product `garden_extra`, entitlement `garden`) and `price_club_monthly` (monthly, product
/// `club_monthly`, entitlement `club`), and sends its signed webhooks to the gateway's `/v1/notifications/stripe`.
/// Nothing about Stripe is scripted: the verifier reads every event back from the sandbox's Stripe API.
struct StripeWorld: Sendable {
    static let secretKey = "sk_test_shopkeeper_sandbox"
    static let webhookSecret = "whsec_shopkeeper_sandbox"
    static let paying = "4242424242424242"
    static let declined = "4000000000000002"
    /// Pays at checkout, fails at every later charge.
    static let failingLater = "4000000000000341"

    let notified: NotifiedStoreWorld
    var world: StoreWorld { notified.world }
    var database: DatabaseSettings { notified.database }
    /// Where the sandbox sends its webhooks.
    var webhookURL: String { notified.gateway.baseURL + "/v1/notifications/stripe?app=\(world.appID)" }

    static var products: [[String: Any]] {
        [
            product("garden_extra", type: .nonConsumable, price: "price_garden_extra", grants: "garden"),
            product("club_monthly", type: .autoRenewable, price: "price_club_monthly", grants: "club"),
        ]
    }

    /// How many plots the shelf sells (`plot_1`..., each granting the entitlement of its name).
    static let plots = 5
    /// Units of `seeds` one purchase adds.
    static let seedsPerPurchase = 10

    /// What a world run with `shelf` sells besides: `seeds` (a consumable of ``seedsPerPurchase`` units, price
    /// `price_seeds`) and ``plots`` non-consumables `plot_N` (price `price_plot_N`).
    static var shelf: [[String: Any]] {
        var seeds = product("seeds", type: .consumable, price: "price_seeds", grants: nil)
        seeds["consumable_quantity"] = seedsPerPurchase
        return [seeds]
            + (1...plots).map {
                product("plot_\($0)", type: .nonConsumable, price: "price_plot_\($0)", grants: "plot_\($0)")
            }
    }

    /// The sandbox's prices of ``shelf``.
    static var shelfPrices: [[String: Any]] {
        [["id": "price_seeds", "unit_amount": 50, "currency": "eur", "product_name": "Seeds"]]
            + (1...plots).map {
                ["id": "price_plot_\($0)", "unit_amount": 100 + $0, "currency": "eur", "product_name": "Plot \($0)"]
            }
    }

    static func product(_ id: String, type: ProductType, price: String, grants entitlement: String?) -> [String: Any] {
        var product: [String: Any] = [
            "product_id": id, "type": type.rawValue, "entitlements": entitlement.map { [$0] } ?? [],
            "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
            "store_product_ids": ["stripe": price], "localizations": ["en": ["name": id, "description": id]],
        ]
        if type == .autoRenewable { product["group"] = "club" }
        return product
    }

    /// Runs `body` in a world of its own, Stripe set up on both sides; with `shelf`, it also sells ``shelf``.
    static func run(
        shelf: Bool = false, verifierEnvironment: [String: String] = [:], sandboxEnvironment: [String: String] = [:],
        _ body: @Sendable @escaping (StripeWorld) async throws -> Void
    ) async throws {
        try await NotifiedStoreWorld.run(
            products: products + (shelf ? Self.shelf : []), apiKey: false, verifierEnvironment: verifierEnvironment,
            sandboxEnvironment: sandboxEnvironment
        ) { notified in
            let stripe = StripeWorld(notified: notified)
            let world = notified.world
            let target = try await world.sandbox(.PUT, "/sandbox/notifications", ["stripe_url": stripe.webhookURL])
            guard target.status == 200 else { throw ServiceProcess.Failure("stripe webhook target: \(target.json)") }
            let prices = try await world.sandbox(
                .PUT, "/sandbox/stripe/prices",
                [
                    "prices": [
                        ["id": "price_garden_extra", "unit_amount": 299, "currency": "eur", "product_name": "Extra"],
                        [
                            "id": "price_club_monthly", "unit_amount": 499, "currency": "usd", "product_name": "Club",
                            "recurring": ["interval": "month"],
                        ],
                    ] + (shelf ? shelfPrices : [])
                ])
            guard prices.status == 200 else { throw ServiceProcess.Failure("stripe prices: \(prices.json)") }
            let saved = try await world.verifier(
                .PUT, "/v1/admin/stores/stripe", ["secret_key": secretKey, "webhook_secrets": [webhookSecret]],
                kind: .secret)
            guard saved.status == 200 else { throw ServiceProcess.Failure("stripe credentials: \(saved.json)") }
            try await body(stripe)
        }
    }

    /// `POST /v1/customers/{user}/checkout` (as the gateway forwards it) for `product`; another `basket` is another
    /// checkout (another success URL), so another session.
    func checkout(_ user: String, product: String, basket: Int = 0) async throws -> StoreWorld.Answer {
        try await world.verifier(
            .POST, "/v1/customers/\(user)/checkout",
            [
                "product_id": product,
                "success_url": "https://shop.example/ok?\(basket == 0 ? "" : "b=\(basket)&")s={CHECKOUT_SESSION_ID}",
                "cancel_url": "https://shop.example/shop",
            ])
    }

    /// A session for `user` and `product`, paid at the sandbox with `card`: the paid session (or the decline).
    @discardableResult
    func buy(_ user: String, product: String, card: String = StripeWorld.paying) async throws -> StoreWorld.Answer {
        let session = try await checkout(user, product: product)
        guard session.status == 201, let id = session["session_id"] as? String else {
            throw ServiceProcess.Failure("checkout: \(session.status) \(session.json)")
        }
        return try await pay(id, card: card)
    }

    /// A session for `user` and `product` made while Stripe is well, then paid with 4242… while every read of the
    /// sandbox's Stripe API suffers `fault` (`status`, `delay_ms`): how a webhook meets Stripe down or slow.
    func buy(_ user: String, product: String, whileReadsSuffer fault: [String: Int]) async throws {
        let session = try await checkout(user, product: product)
        guard session.status == 201, let id = session["session_id"] as? String else {
            throw ServiceProcess.Failure("checkout: \(session.status) \(session.json)")
        }
        var body: [String: Any] = ["endpoint": "stripe.read", "count": 10_000]
        body.merge(fault) { _, new in new }
        let set = try await world.sandbox(.POST, "/sandbox/faults", body)
        guard set.status < 300 else { throw ServiceProcess.Failure("fault: \(set.json)") }
        let paid = try await pay(id, card: Self.paying)
        guard paid.status == 200 else { throw ServiceProcess.Failure("pay: \(paid.status) \(paid.json)") }
    }

    /// Pays the session `id` as its hosted page does.
    func pay(_ id: String, card: String) async throws -> StoreWorld.Answer {
        try await world.sandbox(.POST, "/sandbox/stripe/checkout/\(id)/pay", ["card": card])
    }

    /// Calls the sandbox's Stripe API with the secret key, `form` form-encoded as Stripe's libraries send it.
    @discardableResult
    func stripe(_ method: HTTPMethod, _ path: String, form: [(String, String)] = []) async throws
        -> StoreWorld.Answer
    {
        var request = HTTPClientRequest(url: world.sandbox.baseURL + "/stripe" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(Self.secretKey)")
        if !form.isEmpty {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let encoded = form.map { name, value in
                "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
            }
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: encoded.joined(separator: "&")))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        return StoreWorld.Answer(status: Int(response.status.code), json: json, headers: response.headers)
    }

    /// The sandbox's Stripe webhooks so far, oldest first.
    func deliveries() async throws -> [[String: Any]] {
        (try await world.sandbox(.GET, "/sandbox/notifications?store=stripe")["deliveries"] as? [[String: Any]]) ?? []
    }

    /// Sends the sandbox's event `id` again until the verifier has recorded it, and returns the status of the last
    /// answer (0: none within the sandbox's 5 s, which a loaded machine may take while the verifier still finishes).
    @discardableResult
    func tell(_ id: String) async throws -> Int {
        var status = 0
        try await ShopkeeperTestSupport.eventually(timeout: .seconds(60), "event \(id) recorded") {
            let answer = try await world.sandbox(.POST, "/sandbox/notifications/\(id)/resend")
            status = (answer["statuses"] as? [Int])?.first ?? 0
            return try await count(
                "SELECT count(*)::int FROM verifier.notifications WHERE notification_id = '\(id)'") == 1
        }
        return status
    }

    /// The webhooks once every one sent was answered 2xx (each event read back and recorded).
    func allDelivered() async throws -> [[String: Any]] {
        try await ShopkeeperTestSupport.eventually({ try await deliveries() }) {
            !$0.isEmpty && $0.allSatisfy { $0["delivered"] as? Bool == true }
        }
    }

    /// The id of the latest webhook of `type`.
    func delivery(ofType type: String) async throws -> [String: Any]? {
        try await deliveries().last { $0["type"] as? String == type }
    }

    /// The customer's info once `condition` holds for it (or after 20 seconds).
    func customer(_ user: String, until condition: @Sendable @escaping ([String: Any]) -> Bool) async throws
        -> [String: Any]
    {
        try await ShopkeeperTestSupport.eventually({ try await world.customerInfo(user) }, until: condition)
    }

    /// Moves `visitor`'s web purchases to `user` with a redemption code (issued with the secret key, as the shop's
    /// server may): the redemption's answer, `user`'s info.
    func redeem(from visitor: String, to user: String) async throws -> StoreWorld.Answer {
        let issued = try await world.call(
            world.entitlements, .POST, "/v1/customers/\(visitor)/redemption-codes", kind: .secret)
        guard let code = issued["code"] as? String else { throw ServiceProcess.Failure("code: \(issued.json)") }
        return try await world.call(world.entitlements, .POST, "/v1/customers/\(user)/redeem", ["code": code])
    }

    /// Renews `subscription` on the sandbox's clock: `user`'s info once its subscription is active and ends other
    /// than at `end` (or after 20 seconds).
    func renew(_ subscription: String, for user: String, endingOtherThan end: String?) async throws
        -> [String: Any]
    {
        let renewed = try await world.sandbox(.POST, "/sandbox/stripe/subscriptions/\(subscription)/advance")
        guard renewed.status == 200 else { throw ServiceProcess.Failure("advance: \(renewed.json)") }
        return try await customer(user) {
            let state = Self.subscription($0)
            return state["expires_at"] as? String != end && state["state"] as? String == "active"
        }
    }

    /// Whether `entitlement` is active in customer info `info`.
    static func active(_ info: [String: Any], _ entitlement: String) -> Bool {
        (info["entitlements"] as? [String: [String: Any]])?[entitlement]?["active"] as? Bool == true
    }

    /// The customer's first subscription.
    static func subscription(_ info: [String: Any]) -> [String: Any] {
        (info["subscriptions"] as? [[String: Any]])?.first ?? [:]
    }

    /// Every Stripe notification the verifier recorded has settled (processed or failed, none waiting).
    func notificationsSettled() async throws {
        try await ShopkeeperTestSupport.eventually(timeout: .seconds(20), "stripe notifications settled") {
            try await count(
                "SELECT count(*)::int FROM verifier.notifications WHERE store = 'stripe'"
                    + " AND state NOT IN ('processed', 'failed')") == 0
        }
    }

    /// A count read from the world's database.
    func count(_ sql: String) async throws -> Int {
        try await TestDatabase.withClient(database) { client in
            var total = 0
            for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int.self) {
                total = value
            }
            return total
        }
    }

    /// Posts `body` to the gateway's Stripe webhook with `signature` as its `Stripe-Signature`.
    func postWebhook(_ body: String, signature: String) async throws -> StoreWorld.Answer {
        var request = HTTPClientRequest(url: webhookURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        request.headers.add(name: "Stripe-Signature", value: signature)
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        return StoreWorld.Answer(status: Int(response.status.code), json: json, headers: response.headers)
    }

    /// `Stripe-Signature` for `body` signed with `secret` at `timestamp`, as Stripe computes it.
    static func signature(_ body: String, secret: String, timestamp: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
