import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/admin/stores/apple/orders/{order_id}` (secret key): Apple's *Look Up Order ID* for support. A customer
/// quotes the order id of Apple's email receipt; the answer is the order's transactions, each verified like any
/// signed transaction of the app, and the customers who own them here (every id of each).
struct OrderLookupController {
    let credentials: any CredentialsRepository
    let apple: AppleProofVerifier
    let database: PostgresClient

    /// The answer: the order's transactions and their owners.
    struct OrderLookup: Encodable {
        var orderID: String
        var transactions: [StoreTransaction]
        var customers: [Owner]

        struct Owner: Encodable {
            var appUserIDs: [String]
            var originalTransactionIDs: [String]

            enum CodingKeys: String, CodingKey {
                case appUserIDs = "app_user_ids"
                case originalTransactionIDs = "original_transaction_ids"
            }
        }

        enum CodingKeys: String, CodingKey {
            case transactions, customers
            case orderID = "order_id"
        }
    }

    /// Registered as `:store/orders/:order_id`, not `apple/orders/...`: the router prefers a literal segment and
    /// does not fall back to a parameter, so a literal `apple` would hide `PUT /v1/admin/stores/{store}` for Apple.
    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":store/orders/:order_id", use: lookUp)
    }

    @Sendable func lookUp(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireSecretCaller()
        let orderID = try context.parameters.require("order_id")
        guard context.parameters.get("store") == "apple" else { throw OrderLookupError.notFound(orderID) }
        // Apple's order ids are short letters and digits (`MK5TTTVWJH`); anything else is no order.
        guard (1...64).contains(orderID.count), orderID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { throw OrderLookupError.notFound(orderID) }
        guard let credentials = try await credentials.apple(appID: caller.appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard let key = credentials.apiKey else { throw OrderLookupError.apiKeyRequired }
        let signed = try await apple.api.lookUpOrder(orderID, credentials: credentials, key: key)
        guard !signed.isEmpty else { throw OrderLookupError.notFound(orderID) }
        var transactions: [StoreTransaction] = []
        for jws in signed {
            transactions.append(try await apple.verifySignedTransaction(jws, credentials: credentials))
        }
        let owners = try await Self.owners(
            of: transactions.map(\.originalTransactionID), appID: caller.appID, on: database, logger: context.logger)
        return try JSONBody.response(
            OrderLookup(orderID: orderID, transactions: transactions, customers: owners),
            headers: [.cacheControl: "no-store"])
    }

    /// The customers who own these App Store purchases here, with every id of each (read through entitlements'
    /// published views).
    static func owners(of originals: [String], appID: String, on database: PostgresClient, logger: Logger)
        async throws -> [OrderLookup.Owner]
    {
        let rows = try await database.query(
            """
            SELECT p.customer_id, array_agg(DISTINCT p.original_transaction_id ORDER BY p.original_transaction_id),
                   (SELECT array_agg(a.app_user_id ORDER BY a.app_user_id) FROM entitlements.customer_aliases_v1 a
                    WHERE a.app_id = \(appID) AND a.customer_id = p.customer_id)
            FROM entitlements.purchases_v1 p
            WHERE p.app_id = \(appID) AND p.store = 'app_store' AND p.original_transaction_id = ANY(\(originals))
            GROUP BY p.customer_id
            ORDER BY 2
            """,
            logger: logger)
        var owners: [OrderLookup.Owner] = []
        for try await (_, originals, ids) in rows.decode((UUID, [String], [String]?).self) {
            owners.append(OrderLookup.Owner(appUserIDs: ids ?? [], originalTransactionIDs: originals))
        }
        return owners
    }
}

/// Why an order lookup answered no order.
enum OrderLookupError: ProblemError, Equatable {
    /// Apple knows no such order for this app (in any environment the app accepts).
    case notFound(String)
    /// Looking up orders asks the App Store Server API: the app's Apple settings need its key.
    case apiKeyRequired

    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .apiKeyRequired: .unprocessableContent
        }
    }

    var code: String {
        switch self {
        case .notFound: "order_not_found"
        case .apiKeyRequired: "api_key_required"
        }
    }

    var detail: String {
        switch self {
        case .notFound(let id): "The App Store knows no order \(id) for this app."
        case .apiKeyRequired:
            "Looking up an order asks the App Store Server API: set the app's api_key under /v1/admin/stores/apple."
        }
    }
}
