import Foundation
import ShopkeeperCore

/// Carries out a ``DemoSalesPlan``: each purchase is made at the sandbox store with its past date and presented to
/// `POST /v1/purchases` with the app's public key, as the app would; a few customers at a time, each customer's
/// purchases in order.
struct DemoSalesBuyer: Sendable {
    /// The gateway with the app's public key.
    let gateway: GatewayAPIClient
    /// The gateway with the app's secret key.
    let admin: GatewayAPIClient
    let sandboxURL: String
    let bundleID: String

    /// What was made.
    struct Made: Sendable {
        var purchases = 0
        var renewals = 0
        var consumed = 0
        var refunds = 0

        static func + (left: Made, right: Made) -> Made {
            Made(
                purchases: left.purchases + right.purchases, renewals: left.renewals + right.renewals,
                consumed: left.consumed + right.consumed, refunds: left.refunds + right.refunds)
        }
    }

    static let concurrency = 4

    func buy(_ plan: DemoSalesPlan) async throws -> Made {
        var made = Made()
        var appleTransactions: [String: [String: String]] = [:]
        try await withThrowingTaskGroup(of: (String, Made, [String: String]).self) { group in
            var pending = plan.customers[...]
            func startNext() {
                guard let customer = pending.popFirst() else { return }
                group.addTask { try await buy(for: customer) }
            }
            for _ in 0..<Self.concurrency { startNext() }
            while let (customer, bought, transactions) = try await group.next() {
                made = made + bought
                appleTransactions[customer] = transactions
                startNext()
            }
        }
        if let refund = plan.refund, let transactionID = appleTransactions[refund.appUserID]?[refund.product] {
            try await self.refund(transactionID)
            made.refunds += 1
        }
        return made
    }

    /// One customer's purchases; answers the App Store transaction id of each product bought once.
    private func buy(for customer: DemoSalesPlan.Customer) async throws -> (String, Made, [String: String]) {
        var made = Made()
        var transactions: [String: String] = [:]
        for purchase in customer.purchases {
            if customer.google {
                let token = try await googlePurchase(purchase, customer: customer)
                try await present(customer, proof: ["purchase_token": token, "product_id": purchase.item.product])
            } else {
                let created = try await applePurchase(purchase, customer: customer, original: nil)
                try await present(customer, proof: ["signed_transaction": created.signed])
                transactions[purchase.item.product] = created.transactionID
            }
            made.purchases += 1
            if purchase.consume > 0 {
                try await consume(purchase.consume, of: purchase.item.product, customer: customer)
                made.consumed += purchase.consume
            }
        }
        var original: String?
        for period in customer.subscription {
            let created = try await applePurchase(period, customer: customer, original: original)
            try await present(customer, proof: ["signed_transaction": created.signed])
            if original == nil { made.purchases += 1 } else { made.renewals += 1 }
            original = original ?? created.originalTransactionID
        }
        return (customer.appUserID, made, transactions)
    }

    struct AppleCreated: Decodable {
        var transactionID: String
        var originalTransactionID: String
        var signed: String

        enum CodingKeys: String, CodingKey {
            case transactionID = "transaction_id"
            case originalTransactionID = "original_transaction_id"
            case signed = "signed_transaction"
        }
    }

    func applePurchase(
        _ purchase: DemoSalesPlan.Purchase, customer: DemoSalesPlan.Customer, original: String?
    ) async throws -> AppleCreated {
        var body: [String: Any] = [
            "bundle_id": bundleID, "product_id": "\(bundleID).\(purchase.item.product)",
            "type": purchase.item.appleType, "quantity": purchase.quantity, "environment": "Production",
            "app_account_token": AppAccountToken.uuid(forAppUserID: customer.appUserID).uuidString.lowercased(),
            "purchase_date": Self.timestamp(purchase.date), "price": purchase.item.price * Int64(purchase.quantity),
            "currency": customer.currency, "storefront": customer.storefront, "app_version": customer.appVersion,
        ]
        if let expires = purchase.expires { body["expires_date"] = Self.timestamp(expires) }
        if let original { body["original_transaction_id"] = original }
        if purchase.trial {
            body["offer_type"] = 1
            body["offer_discount_type"] = "FREE_TRIAL"
            body["offer_period"] = "P1W"
            body["price"] = 0
        }
        let data = try await sandbox("/sandbox/apple/transactions", body)
        return try JSONDecoder().decode(AppleCreated.self, from: data)
    }

    private func googlePurchase(_ purchase: DemoSalesPlan.Purchase, customer: DemoSalesPlan.Customer) async throws
        -> String
    {
        let data = try await sandbox(
            "/sandbox/google/purchases",
            [
                "package_name": bundleID, "product_id": purchase.item.product, "type": "product",
                "quantity": purchase.quantity, "obfuscated_account_id": customer.appUserID, "test": false,
                "purchase_time": Self.timestamp(purchase.date),
                "region_code": customer.storefront == "DEU" ? "DE" : "US",
            ])
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let token = object?["purchase_token"] as? String else {
            throw GatewayAPIClient.Failure(status: 200, body: "the sandbox store answered no purchase_token")
        }
        return token
    }

    /// `POST /v1/purchases` with the customer's proof, as the app sends it.
    func present(_ customer: DemoSalesPlan.Customer, proof: [String: String]) async throws {
        var body: [String: Any] = [
            "app_user_id": customer.appUserID, "app_version": customer.appVersion, "device_id": customer.device,
        ]
        body.merge(proof) { _, new in new }
        let json = try JSONSerialization.data(withJSONObject: body)
        _ = try await Self.retrying { try await gateway.send(.POST, "/v1/purchases", json: json) }
    }

    private func consume(_ units: Int, of product: String, customer: DemoSalesPlan.Customer) async throws {
        let path = "/v1/customers/\(customer.appUserID)/consumables/\(product)/consume"
        let json = try JSONSerialization.data(withJSONObject: ["quantity": units])
        // One key for every try: a consume retried after a lost answer spends once.
        let key = UUID().uuidString
        _ = try await Self.retrying {
            try await GatewayAPIClient.execute(
                .POST, url: gateway.baseURL.trimmingSuffix("/") + path, bearer: gateway.bearer, json: json,
                headers: ["Idempotency-Key": key])
        }
    }

    /// Refunds the App Store transaction at the sandbox store, then reads the customer's refund history through the
    /// gateway, which applies the refund unless the store's notification already did.
    private func refund(_ transactionID: String) async throws {
        _ = try await sandbox("/sandbox/apple/transactions/\(transactionID)/refund", ["reason": 0])
        _ = try await Self.retrying {
            try await admin.get(
                "/v1/admin/stores/apple/refunds",
                query: [URLQueryItem(name: "transaction_id", value: transactionID)], accept: "application/json")
        }
    }

    /// The answers the gateway asks to be tried again later: `429` (a rate limit) and `503` (a store or the
    /// database unavailable for a moment).
    static let retriedStatuses: Set<UInt> = [429, 503]
    /// The pauses before each try again: doubling from a quarter second, 8 tries in all (about 16 s).
    static let retryPauses: [Duration] = [0.25, 0.5, 1, 2, 4, 4, 4].map { .milliseconds(Int64($0 * 1000)) }

    /// Runs `call` (an idempotent gateway call: a purchase presented twice, a consume with its key, a read) and tries
    /// it again after each pause of ``retryPauses`` while the gateway answers a status of ``retriedStatuses``.
    static func retrying<T>(_ call: () async throws -> T) async throws -> T {
        for pause in retryPauses {
            do {
                return try await call()
            } catch let failure as GatewayAPIClient.Failure where retriedStatuses.contains(failure.status) {
                try await Task.sleep(for: pause)
            }
        }
        return try await call()
    }

    private func sandbox(_ path: String, _ body: [String: Any]) async throws -> Data {
        try await GatewayAPIClient.execute(
            .POST, url: sandboxURL + path, bearer: nil, json: try JSONSerialization.data(withJSONObject: body))
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
