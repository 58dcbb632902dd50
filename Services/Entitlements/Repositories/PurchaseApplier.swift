import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Applies verified transactions inside one database transaction that holds the locks of the presenter's customer
/// and of every purchase's owner (``CustomerLocks``).
///
/// Each purchase row is inserted or locked before anything is decided about it, so two replicas applying the same
/// transaction at once are serialized by PostgreSQL: the first inserts and grants, the second finds the row and
/// has nothing left to do (or follows the transfer rules when it presents for another customer).
///
/// Money rules: a consumable purchase's units are credited once, to its first presenter, and never move to another
/// presenter; a refund takes back at most what is left of them (a balance never goes below zero); a purchase moves
/// back to a customer it was transferred away from only by a restore.
struct PurchaseApplier {
    let connection: PostgresConnection
    let logger: Logger
    let appID: String
    let settings: AppEntitlementSettings
    /// What asked for the apply: only a restore moves a purchase back to a customer it left.
    let source: ApplySource
    /// The app version the proof was presented from, kept with a purchase recorded for the first time.
    var appVersion: String? = nil
    /// Every customer whose purchase an apply touched, for the info cache to drop once the transaction commits.
    var touched = TouchedCustomers()

    /// Inserts the purchase for `customerID` (the presenter's, presenting from `deviceID`) unless it exists, or, for
    /// store news, finds it; locked either way until the transaction ends. `nil` when there is no such purchase of
    /// this app. A new purchase is inserted with its transaction, device, units and event (``PurchaseRow/Insert``,
    /// which decides its type, credit and event): what ``apply(_:product:presenter:row:)`` would do next for it,
    /// except what a revocation or reinstatement the store reports takes.
    func lockPurchase(
        _ transaction: StoreTransaction, product: CatalogProduct?, for customerID: UUID?, appUserID: String?,
        deviceID: String?
    ) async throws -> PurchaseRow? {
        guard let customerID else {
            return try await PurchaseRow.lock(
                store: transaction.store, originalTransactionID: transaction.originalTransactionID, appID: appID,
                on: connection, logger: logger)
        }
        return try await PurchaseRow.insertOrLock(
            transaction, appID: appID, customerID: customerID, deviceID: deviceID, product: product,
            appVersion: appVersion, appUserID: appUserID, payload: try Self.eventPayloadOfNew(transaction),
            on: connection, logger: logger)
    }

    /// The payload of a new purchase's event as its insert takes it: the statement adds the product and the units.
    static func eventPayloadOfNew(_ transaction: StoreTransaction) throws -> String {
        String(decoding: try JSONBody.encode(payload(transaction, productID: nil)), as: UTF8.self)
    }

    /// Applies one transaction of `product` (the catalog's, `nil` when it does not know the store product) to its
    /// purchase `row` (from ``lockPurchase(_:product:for:)``, its owner locked); throws an ``EntitlementsError``
    /// verdict that must roll everything back.
    func apply(_ transaction: StoreTransaction, product: CatalogProduct?, presenter: Presenter?, row: PurchaseRow?)
        async throws -> TransactionOutcome
    {
        if let presenter {
            try checkPresenter(presenter, may: transaction)
        }
        guard var row else {
            guard presenter != nil else {
                return outcome(transaction, product, .notOwned)
            }
            // The verifier records each transaction for one app only; a purchase of another app cannot be moved.
            throw EntitlementsError.alreadyOwnedByOtherCustomer(
                transactionID: transaction.transactionID, policy: .keepWithOriginal)
        }

        // Store news that names a customer the purchase left (a web purchase redeemed in the app, whose renewals
        // still name the web visitor's id) is news of its owner: it never moves the purchase back.
        let presenter =
            source == .notification && presenter.map { row.previousOwners.contains($0.customerID) } == true
            ? nil : presenter
        var result: ApplyOutcome = .alreadyApplied
        if let presenter, row.customerID != presenter.customerID {
            try await transfer(&row, to: presenter, transaction: transaction)
            result = .transferred
        }
        let owner = row.customerID
        touched.insert(owner)
        let ownerUserID = presenter?.appUserID
        // A purchase inserted by this apply came with its transaction and device (``PurchaseRow/insertOrLock``).
        if !row.inserted {
            if let presenter, let device = presenter.deviceID {
                try await bind(device: device, to: row, transaction: transaction, customerID: presenter.customerID)
            }
            try await recordTransaction(transaction, customerID: owner)
        }
        if !row.inserted, try await refresh(&row, with: transaction, product: product),
            row.productType == .nonConsumable, result == .alreadyApplied
        {
            result = .granted  // the catalog learned the product since the purchase was first recorded
        }

        if row.inserted {
            result = try await announceNew(row, transaction: transaction, customerID: owner, appUserID: ownerUserID)
        }
        if let reversedAt = transaction.revocationReversedAt,
            reversedAt > (row.revocationReversedAt ?? .distantPast),
            try await reinstate(&row, reversedAt: reversedAt, transaction: transaction, appUserID: ownerUserID)
        {
            result = .reinstated
        }
        // A revocation dated at or before a reversal is the reversed one.
        if let revokedAt = transaction.revocationDate, row.inserted || row.revokedAt == nil,
            revokedAt > (row.revocationReversedAt ?? .distantPast)
        {
            try await revoke(&row, transaction: transaction, appUserID: ownerUserID)
            return outcome(transaction, product, .revoked)
        }
        if row.productType == .consumable, row.revokedAt == nil, row.credited == nil, let productID = row.productID {
            try await credit(
                &row, productID: productID, product: product, transaction: transaction, appUserID: ownerUserID)
            result = result == .transferred ? .transferred : .credited
        }
        // Some units refunded, the purchase kept (a running total: only what it adds to the last one applies).
        if row.revokedAt == nil, let refunded = transaction.refundedQuantity, refunded > row.refundedQuantity,
            refunded < transaction.quantity
        {
            try await refundUnits(&row, through: refunded, transaction: transaction, appUserID: ownerUserID)
            return outcome(transaction, product, .partiallyRefunded)
        }
        return outcome(transaction, product, result)
    }

    // MARK: - Steps

    private func checkPresenter(_ presenter: Presenter, may transaction: StoreTransaction) throws {
        // Xcode's and local testing's purchases are test purchases like the sandbox's.
        if transaction.environment != .production, !settings.acceptSandbox {
            throw EntitlementsError.sandboxNotAccepted(transactionID: transaction.transactionID)
        }
        if let token = transaction.appAccountToken, !presenter.owns(appAccountToken: token) {
            throw EntitlementsError.appAccountTokenMismatch(transactionID: transaction.transactionID)
        }
        if let account = transaction.obfuscatedAccountID, !presenter.owns(obfuscatedAccountID: account) {
            throw EntitlementsError.obfuscatedAccountIDMismatch(transactionID: transaction.transactionID)
        }
    }

    /// Moves a purchase to the presenter when the app's policy allows it; throws otherwise.
    private func transfer(_ row: inout PurchaseRow, to presenter: Presenter, transaction: StoreTransaction)
        async throws
    {
        // Units are money already handed out: they stay where they were credited (and may have been spent there).
        if row.productType == .consumable {
            throw EntitlementsError.consumableOwnedByOtherCustomer(transactionID: transaction.transactionID)
        }
        // One change of owner per real transfer: a purchase request never moves it back, so two customers
        // presenting one proof cannot make it bounce between them.
        if source != .restore, row.previousOwners.contains(presenter.customerID) {
            throw EntitlementsError.transferredAway(transactionID: transaction.transactionID)
        }
        switch settings.transferPolicy {
        case .keepWithOriginal:
            throw EntitlementsError.alreadyOwnedByOtherCustomer(
                transactionID: transaction.transactionID, policy: .keepWithOriginal)
        case .transferIfNoActive where row.isActive():
            throw EntitlementsError.alreadyOwnedByOtherCustomer(
                transactionID: transaction.transactionID, policy: .transferIfNoActive)
        case .transfer, .transferIfNoActive:
            break
        }
        let previous = row.customerID
        // Both customers' locks are held (the owner's was taken with the purchase's: ``CustomerLocks``).
        let store: String = row.store.rawValue
        try await connection.run(
            """
            UPDATE entitlements.purchases SET customer_id = \(presenter.customerID),
                previous_owners = array_append(previous_owners, \(previous)), updated_at = now()
            WHERE store = \(store) AND original_transaction_id = \(row.originalTransactionID)
            """,
            logger: logger
        )
        let previousUserID = try await CustomerRows.aliases(of: previous, on: connection, logger: logger).first
        var payload = Self.payload(transaction, productID: row.productID)
        payload.fromAppUserID = previousUserID
        payload.toAppUserID = presenter.appUserID
        for (customer, user) in [(previous, previousUserID), (presenter.customerID, presenter.appUserID)] {
            try await EventOutbox.append(
                .transfer, payload: payload, appID: appID, customerID: customer, appUserID: user, on: connection,
                logger: logger)
        }
        row.previousOwners.append(previous)
        row.customerID = presenter.customerID
        // The customer it left changed too: this replica's cached info of it is dropped at once, not when the change
        // notification arrives (a read right after the transfer saw the purchase still there).
        touched.insert(previous)
    }

    /// Counts the device against the purchase's limit; throws when a new device would pass it.
    private func bind(device: String, to row: PurchaseRow, transaction: StoreTransaction, customerID: UUID)
        async throws
    {
        let store: String = row.store.rawValue
        let rows = try await connection.run(
            SQL.BindDevice.self, try PostgresBindings(store, row.originalTransactionID, device, customerID),
            logger: logger
        ) { try $0.decode((Bool, Int64).self) }
        for (new, earlier) in rows {
            // The count is taken before this statement's insert is visible: `earlier` devices had presented it.
            if new, earlier >= settings.deviceLimit {
                throw EntitlementsError.deviceLimitReached(
                    transactionID: transaction.transactionID, limit: settings.deviceLimit)
            }
        }
    }

    /// Records the store transaction once; whether this was the first time.
    @discardableResult
    private func recordTransaction(_ transaction: StoreTransaction, customerID: UUID) async throws -> Bool {
        let store: String = transaction.store.rawValue
        let environment: String = transaction.environment.rawValue
        let ownership: String = transaction.ownershipType.rawValue
        let bindings = try PostgresBindings(
            store, transaction.transactionID, transaction.originalTransactionID, appID, customerID, environment,
            transaction.storeProductID, transaction.quantity, transaction.purchaseDate, transaction.expiresDate,
            transaction.priceMilliunits, transaction.currency, transaction.storefront, ownership)
        let rows = try await connection.run(SQL.RecordTransaction.self, bindings, logger: logger) {
            try $0.decode(Int.self)
        }
        return !rows.isEmpty
    }

    /// Takes in what a later transaction of the same purchase knows: a later end, a product the catalog now knows.
    /// Returns whether the product became known.
    private func refresh(_ row: inout PurchaseRow, with transaction: StoreTransaction, product: CatalogProduct?)
        async throws -> Bool
    {
        let later = transaction.expiresDate.map { new in row.expiresDate.map { new > $0 } ?? true } ?? false
        let resolves = row.productID == nil && product != nil
        guard later || resolves else { return false }
        let store: String = row.store.rawValue
        let expires: Date? = later ? transaction.expiresDate : row.expiresDate
        let latest: String? = later ? transaction.transactionID : nil
        let productID: String? = row.productID ?? product?.productID
        let type: ProductType? = resolves ? (product?.type ?? row.productType) : row.productType
        let recordedType: String = type?.rawValue ?? "unknown"
        // The sales reports group by the purchase's product: its transactions' days are summed up again.
        try await connection.run(
            """
            WITH resolved AS (
                UPDATE entitlements.transactions SET changed_tx = pg_current_xact_id()
                WHERE \(resolves) AND store = \(store) AND original_transaction_id = \(row.originalTransactionID)
            )
            UPDATE entitlements.purchases SET
                expires_date = \(expires), latest_transaction_id = coalesce(\(latest), latest_transaction_id),
                product_id = \(productID), product_type = \(recordedType), updated_at = now()
            WHERE store = \(store) AND original_transaction_id = \(row.originalTransactionID)
            """,
            logger: logger
        )
        row.expiresDate = expires
        row.productID = productID
        row.productType = type
        return resolves
    }

    /// What a first-seen purchase did, and its trial's conversion (its own event was written by its insert:
    /// ``lockPurchase(_:product:for:appUserID:deviceID:)``).
    private func announceNew(_ row: PurchaseRow, transaction: StoreTransaction, customerID: UUID, appUserID: String?)
        async throws -> ApplyOutcome
    {
        let result = Self.outcomeOfNew(productID: row.productID, type: row.productType)
        if result == .subscriptionRecorded, let productID = row.productID,
            try await TrialConversion.record(
                appID: appID, customerID: customerID, productID: productID, transactionID: transaction.transactionID,
                purchasedAt: transaction.purchaseDate, on: connection, logger: logger)
        {
            try await EventOutbox.append(
                .trialConverted, payload: Self.payload(transaction, productID: productID), appID: appID,
                customerID: customerID, appUserID: appUserID, on: connection, logger: logger)
        }
        return result
    }

    /// What applying a purchase seen for the first time did, by its catalog product (`nil`: the catalog does not know
    /// the store product) and the type it was recorded with.
    static func outcomeOfNew(productID: String?, type: ProductType?) -> ApplyOutcome {
        guard productID != nil, let type else { return .unknownProduct }
        return switch type {
        case .consumable: .credited
        case .nonConsumable: .granted
        case .nonRenewing, .autoRenewable: .subscriptionRecorded
        }
    }

    /// Ends the purchase's grants, takes back what is left of its credited units (for a purchase partly refunded
    /// before, what its remaining store units were credited as; never more than the owner's balance: units already
    /// spent are gone, and a balance never goes below zero) and counts a refund.
    private func revoke(_ row: inout PurchaseRow, transaction: StoreTransaction, appUserID: String?) async throws {
        let store: String = row.store.rawValue
        let reason: String = transaction.revocationReason?.rawValue ?? "other"
        let revokedAt: Date = transaction.revocationDate ?? Date()
        var clawback: Int64 = 0
        // What the units partial refunds did not cover were credited as (all of it without partial refunds).
        let credited = row.credited ?? 0
        let owed = max(credited - credited * Int64(row.refundedQuantity) / Int64(max(transaction.quantity, 1)), 0)
        if owed > 0, let productID = row.productID {
            let balance = try await Ledger.balance(
                customerID: row.customerID, productID: productID, on: connection, logger: logger)
            clawback = min(owed, max(balance, 0))
        }
        let clawed: Int64? = row.credited == nil ? nil : (row.clawedBack ?? 0) + clawback
        // The last units of a purchase refunded some at a time: the refund covers what partial refunds left.
        let quantityBased = transaction.refundedQuantity != nil || row.refundedQuantity > 0
        let refundedNow = Int64(max(transaction.quantity - row.refundedQuantity, 0))
        try await connection.run(
            """
            WITH purchase AS (
                UPDATE entitlements.purchases SET revoked_at = \(revokedAt), revocation_reason = \(reason),
                    clawed_back = \(clawed),
                    refunded_quantity = CASE WHEN \(quantityBased) THEN \(transaction.quantity)
                        ELSE refunded_quantity END,
                    updated_at = now()
                WHERE store = \(store) AND original_transaction_id = \(row.originalTransactionID)
                RETURNING customer_id
            ), refunded AS (
                -- The sales reports count the refund once, on this transaction (recorded above).
                UPDATE entitlements.transactions SET revocation_date = \(revokedAt), revocation_reversed_at = NULL
                WHERE store = \(store) AND transaction_id = \(transaction.transactionID)
            )
            UPDATE entitlements.customers SET refund_count = refund_count + 1
            WHERE customer_id = (SELECT customer_id FROM purchase)
            """,
            logger: logger
        )
        var payload = Self.payload(transaction, productID: row.productID)
        payload.reason = reason
        if clawback > 0, let productID = row.productID {
            payload.balance = try await Ledger.post(
                -clawback, reason: .refund, appID: appID, customerID: row.customerID, productID: productID,
                store: store, transactionID: transaction.transactionID, on: connection, logger: logger)
            payload.quantity = clawback
        }
        if quantityBased {
            payload.refundedQuantity = refundedNow
            payload.unrecoveredQuantity = owed - clawback
            payload.quantity = clawback
        }
        let event: EventType = transaction.ownershipType == .familyShared ? .revocation : .refund
        try await EventOutbox.append(
            event, payload: payload, appID: appID, customerID: row.customerID, appUserID: appUserID, on: connection,
            logger: logger)
        row.revokedAt = revokedAt
        row.clawedBack = clawed
        if quantityBased { row.refundedQuantity = transaction.quantity }
    }

    /// Records the store's reversal of a refund or revocation; when it reverses the one in force, the purchase's grants
    /// stand again, the units its refund took back (``PurchaseRow/clawedBack``) are credited again, and the refund no
    /// longer counts. Returns whether it reversed one.
    private func reinstate(
        _ row: inout PurchaseRow, reversedAt: Date, transaction: StoreTransaction, appUserID: String?
    ) async throws -> Bool {
        let store: String = row.store.rawValue
        let reverses = row.revokedAt.map { $0 <= reversedAt } ?? false
        try await connection.run(
            """
            WITH purchase AS (
                UPDATE entitlements.purchases SET revocation_reversed_at = \(reversedAt),
                    revoked_at = CASE WHEN \(reverses) THEN NULL ELSE revoked_at END,
                    revocation_reason = CASE WHEN \(reverses) THEN NULL ELSE revocation_reason END,
                    clawed_back = CASE WHEN \(reverses) THEN NULL ELSE clawed_back END,
                    updated_at = now()
                WHERE store = \(store) AND original_transaction_id = \(row.originalTransactionID)
                RETURNING customer_id
            ), reversed AS (
                UPDATE entitlements.transactions SET revocation_reversed_at = \(reversedAt)
                WHERE \(reverses) AND store = \(store) AND original_transaction_id = \(row.originalTransactionID)
                  AND revocation_date IS NOT NULL AND revocation_date <= \(reversedAt)
            )
            UPDATE entitlements.customers SET refund_count = greatest(refund_count - 1, 0)
            WHERE customer_id = (SELECT customer_id FROM purchase) AND \(reverses)
            """,
            logger: logger
        )
        row.revocationReversedAt = reversedAt
        guard reverses else { return false }
        var payload = Self.payload(transaction, productID: row.productID)
        // A refund recorded before refunds were capped at the balance took back everything credited.
        if let returned = row.clawedBack ?? row.credited, returned > 0, let productID = row.productID {
            payload.balance = try await Ledger.post(
                returned, reason: .refundReversed, appID: appID, customerID: row.customerID, productID: productID,
                store: store, transactionID: transaction.transactionID, on: connection, logger: logger)
            payload.quantity = returned
        }
        try await EventOutbox.append(
            .refundReversed, payload: payload, appID: appID, customerID: row.customerID, appUserID: appUserID,
            on: connection, logger: logger)
        row.revokedAt = nil
        row.clawedBack = nil
        return true
    }

    /// Credits a consumable purchase's units once (``SQL/Credit``, as a new purchase's insert credits them):
    /// `credited` is set in the same transaction as the ledger line.
    private func credit(
        _ row: inout PurchaseRow, productID: String, product: CatalogProduct?, transaction: StoreTransaction,
        appUserID: String?
    ) async throws {
        let store: String = row.store.rawValue
        // The event's units and balance are the ones the statement credits and leads to: it puts them in.
        let document = String(
            decoding: try JSONBody.encode(Self.payload(transaction, productID: productID)), as: UTF8.self)
        let credited = try await connection.run(
            SQL.Credit.self,
            try PostgresBindings(
                product?.consumableQuantity, store, row.originalTransactionID, appID, row.customerID, productID,
                transaction.transactionID, appUserID, transaction.environment.rawValue, document,
                Int64(transaction.quantity)),
            logger: logger
        ) { try $0.decode(Int64.self) }
        row.credited = credited.first
    }

    // MARK: - Helpers

    private func outcome(_ transaction: StoreTransaction, _ product: CatalogProduct?, _ outcome: ApplyOutcome)
        -> TransactionOutcome
    {
        TransactionOutcome(
            store: transaction.store, transactionID: transaction.transactionID, productID: product?.productID,
            outcome: outcome)
    }

    /// The part of an event every purchase event carries.
    static func payload(_ transaction: StoreTransaction, productID: String?) -> EventPayload {
        EventPayload(
            productID: productID, storeProductID: transaction.storeProductID, store: transaction.store.rawValue,
            environment: transaction.environment.rawValue, transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            purchaseDate: transaction.purchaseDate.formatted(.iso8601), priceMilliunits: transaction.priceMilliunits,
            currency: transaction.currency)
    }
}

/// The customers one apply changed (the presenter, and in news mode the purchases' current owners).
final class TouchedCustomers: Sendable {
    private let ids = NIOLockedValueBox<Set<UUID>>([])

    func insert(_ id: UUID) {
        _ = ids.withLockedValue { $0.insert(id) }
    }

    var all: Set<UUID> { ids.withLockedValue { $0 } }
}
