import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport

/// Calls of the customer operations (aliases, consume, grants, history, devices), as the gateway makes them.
extension EntitlementsHarness {
    /// `POST /v1/customers/{user}/consumables/{product}/consume`; `key: nil` sends no `Idempotency-Key`.
    func consume(
        _ user: String, _ product: String = "seeds", quantity: Int = 1, key: String? = UUID().uuidString,
        kind: APIKeyKind = .public, replica: Int = 0, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        var headers: HTTPFields = [:]
        if let key, let name = HTTPField.Name("Idempotency-Key") { headers[name] = key }
        return try await send(
            .post, "/v1/customers/\(user)/consumables/\(product)/consume", kind: kind,
            json: try TestJSON.encode(["quantity": quantity]), headers: headers, replica: replica, atOnce: atOnce)
    }

    /// `POST /v1/customers/{user}/aliases` (with the secret key unless told: folding a customer who owns something
    /// into another needs it).
    func link(
        _ alias: String, to user: String, kind: APIKeyKind = .secret, replica: Int = 0, atOnce: Bool = false
    ) async throws -> any HTTPAnswer {
        try await send(
            .post, "/v1/customers/\(user)/aliases", kind: kind, json: try TestJSON.encode(["alias": alias]),
            replica: replica, atOnce: atOnce)
    }

    /// `POST /v1/customers/{user}/grants`.
    func grant(
        _ entitlement: String, to user: String, expiresAt: Date = Date().addingTimeInterval(86_400),
        note: String? = nil, kind: APIKeyKind = .secret
    ) async throws -> any HTTPAnswer {
        var body = ["entitlement_id": entitlement, "expires_at": expiresAt.formatted(.iso8601)]
        if let note { body["note"] = note }
        return try await send(.post, "/v1/customers/\(user)/grants", kind: kind, json: try TestJSON.encode(body))
    }

    /// `GET /v1/customers/{user}/history`.
    func history(_ user: String, kind: APIKeyKind = .secret) async throws -> any HTTPAnswer {
        try await send(.get, "/v1/customers/\(user)/history", kind: kind)
    }

    /// `DELETE /v1/admin/purchases/{store}/{original}/devices`.
    func clearDevices(_ original: String, store: String = "app_store", kind: APIKeyKind = .secret) async throws
        -> any HTTPAnswer
    {
        try await send(.delete, "/v1/admin/purchases/\(store)/\(original)/devices", kind: kind)
    }

    /// Every (customer, product) of this app whose balance is not the sum of its ledger lines, as
    /// `customer/product: balance != sum`; empty when the ledger adds up everywhere.
    func ledgerMismatches() async throws -> [String] {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT coalesce(b.customer_id, l.customer_id)::text, coalesce(b.product_id, l.product_id),
                       coalesce(b.balance, 0), coalesce(l.total, 0)::bigint
                FROM (SELECT * FROM entitlements.balances WHERE app_id = \(appID)) b
                FULL JOIN (
                    SELECT customer_id, product_id, sum(delta) AS total FROM entitlements.ledger
                    WHERE app_id = \(appID) GROUP BY customer_id, product_id
                ) l ON l.customer_id = b.customer_id AND l.product_id = b.product_id
                WHERE coalesce(b.balance, 0) <> coalesce(l.total, 0)
                """)
            var mismatches: [String] = []
            for try await (customer, product, balance, total) in rows.decode((String, String, Int64, Int64).self) {
                mismatches.append("\(customer)/\(product): \(balance) != \(total)")
            }
            return mismatches
        }
    }

    /// A number this app's rows give, from a query that selects one `bigint`.
    func count(_ query: PostgresQuery) async throws -> Int64 {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(query)
            for try await value in rows.decode(Int64.self) { return value }
            return -1
        }
    }

    /// The ledger lines of one customer and product with `reason`, as their deltas, oldest first.
    func ledgerLines(_ user: String, product: String = "seeds", reason: String) async throws -> [Int64] {
        try await TestDatabase.withClient(database) { client in
            let rows = try await client.query(
                """
                SELECT l.delta FROM entitlements.ledger l
                JOIN entitlements.aliases a ON a.customer_id = l.customer_id
                WHERE a.app_id = \(appID) AND a.app_user_id = \(user) AND l.product_id = \(product)
                  AND l.reason = \(reason)
                ORDER BY l.line_id
                """)
            var deltas: [Int64] = []
            for try await delta in rows.decode(Int64.self) { deltas.append(delta) }
            return deltas
        }
    }
}

extension HTTPAnswer {
    /// The body as a JSON object.
    var json: [String: Any] {
        get throws { try TestJSON.object(body.readableBytesView) }
    }
}
