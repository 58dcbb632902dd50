import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP

/// One request to spend units of a consumable.
struct ConsumeRequest: Sendable {
    var appID: String
    /// The id the request addressed the customer by.
    var appUserID: String
    var productID: String
    var quantity: Int64
    var idempotencyKey: String
    /// The request id, kept in a refusal's problem document.
    var requestID: String?
}

/// Spends consumable units.
protocol ConsumableRepository: Sendable {
    /// Spends `request.quantity` units, once per idempotency key.
    ///
    /// Answers `200` with the new balance and the customer's info, or `409 insufficient_balance` (as a problem
    /// document) when the balance is short, and keeps that answer under the key: a retry with the same key and the
    /// same request gets it again, replayed. Throws ``EntitlementsError/idempotencyKeyReused`` for the key with
    /// another request, and, with nothing kept, ``EntitlementsError/productNotFound(_:)`` or
    /// ``EntitlementsError/notAConsumable(productID:)``.
    func consume(_ request: ConsumeRequest) async throws -> StoredResponse
}

/// ``ConsumableRepository`` on PostgreSQL.
struct ConsumablePostgresRepository: ConsumableRepository {
    let client: PostgresClient
    let logger: Logger

    func consume(_ request: ConsumeRequest) async throws -> StoredResponse {
        let hash = IdempotencyKeys.requestHash([request.appUserID, request.productID, String(request.quantity)])
        return try await client.transaction(logger: logger) { connection in
            let claim = try await IdempotencyKeys.claim(
                appID: request.appID, key: request.idempotencyKey, requestHash: hash, on: connection, logger: logger)
            if case .answered(let earlier) = claim { return earlier }

            guard
                let product = try await CatalogLookup.product(
                    appID: request.appID, productID: request.productID, on: connection, logger: logger)
            else { throw EntitlementsError.productNotFound(request.productID) }
            guard product.type == .consumable else {
                throw EntitlementsError.notAConsumable(productID: product.productID)
            }

            let answer = try await spend(request, on: connection)
            try await IdempotencyKeys.finish(
                answer, appID: request.appID, key: request.idempotencyKey, on: connection, logger: logger)
            return answer
        }
    }

    /// Spends the units, or refuses; the customer's and the balance's rows are locked first, so concurrent spends
    /// and refunds of the same balance are serialized and the check holds when the line is written.
    private func spend(_ request: ConsumeRequest, on connection: PostgresConnection) async throws -> StoredResponse {
        let customerID = try await CustomerRows.lockCurrent(
            appID: request.appID, appUserID: request.appUserID, create: false, on: connection, logger: logger)
        var balance: Int64 = 0
        if let customerID {
            let rows = try await connection.checkedQuery(
                """
                SELECT balance FROM entitlements.balances
                WHERE customer_id = \(customerID) AND product_id = \(request.productID)
                FOR UPDATE
                """,
                logger: logger
            )
            for try await units in rows.decode(Int64.self) { balance = units }
        }
        guard let customerID, balance >= request.quantity else {
            let refusal = EntitlementsError.insufficientBalance(
                productID: request.productID, balance: balance, requested: request.quantity)
            let document = try JSONBody.encode(refusal.problem(requestID: request.requestID))
            return StoredResponse(
                status: Int(refusal.status.code), body: String(decoding: document, as: UTF8.self), replayed: false)
        }

        let remaining = try await Ledger.post(
            -request.quantity, reason: .consume, appID: request.appID, customerID: customerID,
            productID: request.productID, idempotencyKey: request.idempotencyKey, on: connection, logger: logger)
        var payload = EventPayload()
        payload.productID = request.productID
        payload.quantity = request.quantity
        payload.balance = remaining
        try await EventOutbox.append(
            .consumed, payload: payload, appID: request.appID, customerID: customerID, appUserID: request.appUserID,
            on: connection, logger: logger)
        guard
            let (info, _) = try await CustomerInfoQuery.render(
                appID: request.appID, appUserID: request.appUserID, touching: true, plainFirst: true, on: connection,
                logger: logger)
        else { throw EntitlementsError.customerNotFound(request.appUserID) }
        let body = JSONText.object([
            "product_id": JSONText.string(request.productID),
            "consumed": String(request.quantity),
            "balance": String(remaining),
            "customer": info,
        ])
        return StoredResponse(status: 200, body: body, replayed: false)
    }
}
