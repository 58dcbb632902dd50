import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/admin/stores/apple/refunds?app_user_id=...` or `?transaction_id=...` (secret key): Apple's *Get Refund
/// History* for support. A customer writes in about a refund; the answer is every refund Apple made to them in this
/// app (each signed transaction verified like any other), and each refund Shopkeeper had not recorded yet (its
/// notification was lost) is recorded and applied now, once.
///
/// A support desk knows its customer by their app user id, so that is the usual key: Apple answers per Apple account
/// given any transaction of it, and Shopkeeper asks with the customer's App Store purchases (the newest
/// ``maximumLookups``, one per original transaction, since a customer may have bought with more than one Apple
/// account). `transaction_id` asks with one transaction, as Apple's endpoint does (from an order lookup, say).
struct RefundHistoryController {
    let credentials: any CredentialsRepository
    let apple: AppleProofVerifier
    let news: StoreNewsApplier
    let database: PostgresClient
    /// The most purchases of one customer Shopkeeper asks Apple with.
    static let maximumLookups = 10

    /// The answer: the refunds, whether each was news, and who owns the refunded purchases here.
    struct RefundHistory: Encodable {
        var refunds: [Refund]
        var customers: [OrderLookupController.OrderLookup.Owner]
        /// The transaction ids Apple was asked with.
        var askedWith: [String]

        struct Refund: Encodable {
            var transaction: StoreTransaction
            /// Shopkeeper had not recorded this refund: it is recorded and applied by this request.
            var newlyApplied: Bool

            enum CodingKeys: String, CodingKey {
                case transaction
                case newlyApplied = "newly_applied"
            }
        }

        enum CodingKeys: String, CodingKey {
            case refunds, customers
            case askedWith = "asked_with"
        }
    }

    /// Under `:store`: a literal `apple` would hide `PUT /v1/admin/stores/{store}` for Apple (see
    /// ``OrderLookupController/endpoints``).
    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":store/refunds", use: lookUp)
    }

    @Sendable func lookUp(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireAppStoreSupportCaller()
        let query = request.uri.queryParameters
        let givenUser = query["app_user_id"].map(String.init)
        let transactionID = query["transaction_id"].map(String.init)
        guard (givenUser == nil) != (transactionID == nil) else {
            throw RequestError.invalidQuery([
                FieldProblem(pointer: "?app_user_id", detail: "give either app_user_id or transaction_id, not both")
            ])
        }
        if let transactionID, !Self.isTransactionID(transactionID) {
            throw RequestError.invalidQuery([
                FieldProblem(pointer: "?transaction_id", detail: "must be an App Store transaction id (digits)")
            ])
        }
        // The one rule of an app user id (and its one form, NFC), as everywhere else.
        var user: String?
        if let givenUser {
            var problems: [FieldProblem] = []
            user = AppUserID.validated(givenUser, pointer: "?app_user_id", problems: &problems)
            guard problems.isEmpty else { throw RequestError.invalidQuery(problems) }
        }
        guard let credentials = try await credentials.apple(appID: caller.appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard let key = credentials.apiKey else { throw AppStoreSupportError.apiKeyRequired }
        let lookups: [(id: String, environment: StoreEnvironment?)] =
            if let transactionID { [(transactionID, nil)] } else {
                try await purchases(of: user ?? "", appID: caller.appID, logger: context.logger).map {
                    ($0.id, Optional($0.environment))
                }
            }
        var refunded: [VerifiedFact] = []
        var seen: Set<String> = []
        for lookup in lookups {
            guard
                let signed = try await apple.api.refundHistory(
                    lookup.id, environment: lookup.environment, credentials: credentials, key: key)
            else {
                if transactionID != nil { throw AppStoreSupportError.transactionNotFound(lookup.id) }
                continue
            }
            for jws in signed {
                let transaction = try await apple.verifySignedTransaction(jws, credentials: credentials)
                guard seen.insert(transaction.transactionID).inserted else { continue }
                refunded.append(VerifiedFact(transaction: transaction, proofKind: .storeStatus, rawProof: jws))
            }
        }
        let applied = try await news.logging(to: context.logger).applyRefunds(
            refunded, appID: caller.appID, requestID: context.requestID)
        let owners = try await OrderLookupController.owners(
            of: Array(Set(refunded.map(\.transaction.originalTransactionID))), appID: caller.appID, on: database,
            logger: context.logger)
        context.logger.info(
            "refund history looked up",
            metadata: ["refunds": "\(refunded.count)", "newly_applied": "\(applied.count)"])
        return try JSONBody.response(
            RefundHistory(
                refunds: refunded.map {
                    .init(transaction: $0.transaction, newlyApplied: applied.contains($0.transaction.transactionID))
                },
                customers: owners, askedWith: lookups.map(\.id)),
            headers: [.cacheControl: "no-store"])
    }

    /// Apple's transaction ids are digits (an unsigned 64-bit number at most).
    static func isTransactionID(_ text: String) -> Bool {
        (1...20).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The customer's App Store purchases to ask Apple with: the newest purchase of each original transaction, newest
    /// first, in Apple's environments (read through entitlements' published views).
    private func purchases(of appUserID: String, appID: String, logger: Logger) async throws
        -> [(id: String, environment: StoreEnvironment)]
    {
        let rows = try await database.query(
            """
            SELECT p.original_transaction_id, p.environment
            FROM entitlements.customer_aliases_v1 a
            JOIN entitlements.purchases_v1 p ON p.app_id = a.app_id AND p.customer_id = a.customer_id
            WHERE a.app_id = \(appID) AND a.app_user_id = \(appUserID) AND p.store = 'app_store'
              AND p.environment IN ('production', 'sandbox')
            ORDER BY p.purchase_date DESC, p.original_transaction_id
            LIMIT \(Self.maximumLookups)
            """,
            logger: logger)
        var found: [(id: String, environment: StoreEnvironment)] = []
        for try await (id, environment) in rows.decode((String, String).self) {
            guard let environment = StoreEnvironment(rawValue: environment) else { continue }
            found.append((id, environment))
        }
        return found
    }
}
