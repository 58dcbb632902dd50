import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

/// StoreKit 2 app transactions and the customers they belong to.
///
/// An app transaction is kept once per app and `appTransactionId`, with the customer it belongs to now; what it
/// proves (products included in its variant, products grandfathered below a version) is worked out from the catalog
/// whenever customer info is rendered (``CustomerInfoQuery``). Presented by another customer, it moves by the app's
/// transfer policy as a purchase does, and a purchase request never moves it back to a customer it left.
protocol AppTransactionRepository: Sendable {
    /// Records that the customer `request.appUserID` names (created on first sight) presented the app transaction;
    /// answers the outcome and the customer's info (rendered JSON). Throws an ``EntitlementsError`` verdict.
    func apply(_ request: AppTransactionApplyRequest, appID: String) async throws
        -> (outcome: AppTransactionOutcome, customer: String)
}

/// ``AppTransactionRepository`` on PostgreSQL (`entitlements.app_transactions`).
struct AppTransactionPostgresRepository: AppTransactionRepository {
    let client: PostgresClient
    let logger: Logger

    func apply(_ request: AppTransactionApplyRequest, appID: String) async throws
        -> (outcome: AppTransactionOutcome, customer: String)
    {
        let facts = request.appTransaction
        return try await client.transaction(logger: logger, attempts: 8) { connection in
            let settings = try await SettingsRows.read(appID: appID, on: connection, logger: logger)
            if facts.environment != .production && !settings.acceptSandbox {
                throw EntitlementsError.sandboxNotAccepted(transactionID: facts.appTransactionID)
            }
            // One writer per customer: the presenter's and the current owner's locks, together and in order.
            let named = try await CustomerRows.customerFor(
                appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
            let ownerSeen = try await Self.owner(
                facts.appTransactionID, appID: appID, lock: false, on: connection, logger: logger)
            try await CustomerLocks.lock(
                [named] + (ownerSeen.map { [$0.customerID] } ?? []), on: connection, logger: logger)
            guard
                try await CustomerRows.find(appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
                    == named
            else { throw TransactionRestart(reason: "the customer was merged into another while the change waited") }
            let owner = try await Self.owner(
                facts.appTransactionID, appID: appID, lock: true, on: connection, logger: logger)
            guard owner?.customerID == ownerSeen?.customerID else {
                throw TransactionRestart(reason: "the app transaction changed owner while the change waited")
            }
            let outcome: AppTransactionOutcome
            if let owner {
                outcome = try await move(
                    owner, to: named, request: request, policy: settings.transferPolicy, appID: appID,
                    on: connection)
            } else {
                try await connection.run(
                    """
                    INSERT INTO entitlements.app_transactions (
                        app_id, app_transaction_id, customer_id, environment, variant, original_application_version,
                        original_purchase_date)
                    VALUES (
                        \(appID)::text, \(facts.appTransactionID)::text, \(named)::uuid,
                        \(facts.environment.rawValue)::text, \(facts.variant)::text,
                        \(facts.originalApplicationVersion)::text, \(facts.originalPurchaseDate)::timestamptz)
                    """,
                    logger: logger)
                outcome = .recorded
            }
            if outcome != .alreadyRecorded { try await CustomerRows.touch(named, on: connection, logger: logger) }
            guard
                let (json, _) = try await CustomerInfoQuery.render(
                    appID: appID, appUserID: request.appUserID, on: connection, logger: logger)
            else { throw EntitlementsError.customerNotFound(request.appUserID) }
            return (outcome, json)
        }
    }

    /// The customer an app transaction belongs to, and those it was moved away from.
    private struct Owner {
        var customerID: UUID
        var previousOwners: [UUID]
        /// Whether that customer was merged into another (the presenter, when it is the one locked).
        var mergedInto: UUID?
    }

    private static func owner(
        _ appTransactionID: String, appID: String, lock: Bool, on connection: PostgresConnection, logger: Logger
    ) async throws -> Owner? {
        let rows = try await connection.checkedQuery(
            """
            SELECT t.customer_id, t.previous_owners, c.merged_into
            FROM entitlements.app_transactions t JOIN entitlements.customers c ON c.customer_id = t.customer_id
            WHERE t.app_id = \(appID)::text AND t.app_transaction_id = \(appTransactionID)::text
            \(unescaped: lock ? "FOR UPDATE OF t" : "")
            """,
            logger: logger)
        for try await (customer, previous, merged) in rows.decode((UUID, [UUID], UUID?).self) {
            return Owner(customerID: customer, previousOwners: previous, mergedInto: merged)
        }
        return nil
    }

    /// Presented again by its owner, nothing changes; by another customer, the transfer policy decides.
    private func move(
        _ owner: Owner, to presenter: UUID, request: AppTransactionApplyRequest, policy: TransferPolicy,
        appID: String, on connection: PostgresConnection
    ) async throws -> AppTransactionOutcome {
        let id = request.appTransaction.appTransactionID
        if owner.customerID == presenter || owner.mergedInto == presenter { return .alreadyRecorded }
        // One change of owner per real transfer: a purchase request never moves it back.
        if request.source != .restore, owner.previousOwners.contains(presenter) {
            throw EntitlementsError.transferredAway(transactionID: id)
        }
        switch policy {
        case .keepWithOriginal, .transferIfNoActive:
            // What it proves never ends, so the owner always has something active from it.
            throw EntitlementsError.alreadyOwnedByOtherCustomer(transactionID: id, policy: policy)
        case .transfer:
            try await connection.run(
                """
                UPDATE entitlements.app_transactions
                SET customer_id = \(presenter)::uuid,
                    previous_owners = array_append(array_remove(previous_owners, \(presenter)::uuid),
                                                   \(owner.customerID)::uuid),
                    updated_at = now()
                WHERE app_id = \(appID)::text AND app_transaction_id = \(id)::text
                """,
                logger: logger)
            try await CustomerRows.touch(owner.customerID, on: connection, logger: logger)
            return .transferred
        }
    }
}
