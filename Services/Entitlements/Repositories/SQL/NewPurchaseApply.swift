import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// The apply of a purchase seen for the first time, in one round trip: the statement calls a routine
/// (``apply``) that runs, in the statement's own transaction, what ``PurchasePostgresRepository`` would run in five
/// round trips for it: the start with the customer locks (``ApplyStart/StatementThenLock``), the insert that records
/// the purchase whole and decides its type, units and event (``PurchaseRow/Insert``) and the render of the customer's
/// info (``CustomerInfoQuery/PlainTouchRenderAndStore``, then ``CustomerInfoQuery/TouchRenderAndStore`` for a customer
/// that is not plain). The routines are made of those statements' own texts, so there is one SQL for both ways.
///
/// It handles a purchase of a consumable, a non-consumable or a product the catalog does not know (``handles(_:)``):
/// anything else it declines before writing, answering no row: a purchase that exists (or was inserted by someone
/// else meanwhile), a subscription (its trial's conversion is the apply's step), a test purchase the app does not
/// accept, a customer merged while the routine waited for its lock. The caller then runs the apply in full, which
/// says why it refuses what it refuses. Declining may leave the presenter's customer created, as the apply would.
enum NewPurchaseApply {
    /// ``PurchaseRow/Insert`` as a routine that ``apply`` calls with its own arguments.
    static let insert = Routine(
        schema: "entitlements", base: "insert_purchase",
        returns: "TABLE (inserted_customer uuid, inserted_type text, inserted_credited bigint)",
        answering: PurchaseRow.Insert.self)

    /// `$1` app, `$2` app user id, `$3`/`$4` store and original transaction id, `$5` store product id (the start's
    /// parameters, and `$1`/`$2` the renders'), then the transaction's other fields, the presenting device and build,
    /// and the event's payload without the product (``PurchaseApplier/eventPayloadOfNew(_:)``).
    static let apply = Routine(
        schema: "entitlements", base: "apply_new_purchase",
        parameters: """
            text, text, text, text, text, p_environment text, p_ownership text, p_original_purchase timestamptz,
            p_transaction_id text, p_quantity bigint, p_expires timestamptz, p_app_version text,
            p_purchase_date timestamptz, p_price bigint, p_currency text, p_storefront text, p_device text,
            p_payload text, p_store_type text
            """,
        returns: """
            TABLE (a_type text, a_credited bigint, a_product_id text, a_body text, a_last_seen timestamptz,
                   a_customer_id uuid, a_next_change timestamptz)
            """,
        body: """
            #variable_conflict use_column
            DECLARE
                v_start record;
                v_new record;
                v_info record;
            BEGIN
                SELECT x.* INTO v_start FROM (
                \(ApplyStart.StatementThenLock.sql)
                ) AS x;
                IF v_start.customer IS NULL OR v_start.owner IS NOT NULL
                    OR v_start.lock_customers_then_find IS DISTINCT FROM v_start.customer
                    OR (p_environment <> 'production' AND NOT coalesce(v_start.accept_sandbox, true))
                    -- In parentheses: PL/pgSQL would end the condition at the CASE's THEN.
                    OR (\(PurchaseRow.typeDecision(
                        productID: "v_start.product_id", catalogType: "v_start.type", storeType: "p_store_type")))
                        IN (\(ProductType.autoRenewable.sql), \(ProductType.nonRenewing.sql))
                THEN
                    RETURN;
                END IF;
                SELECT i.* INTO v_new FROM \(insert.name)(
                    $3, $4, $1, v_start.customer, $5, v_start.product_id, v_start.type, p_environment, p_ownership,
                    p_original_purchase, p_transaction_id, p_quantity, p_expires, NULL, NULL, p_app_version,
                    p_purchase_date, p_price, p_currency, p_storefront, p_device, v_start.consumable_quantity::bigint,
                    $2, p_payload, p_store_type, true) AS i;
                IF NOT FOUND THEN
                    RETURN;
                END IF;
                -- Applied: from here on a row is answered, with the customer's info as both renders leave it.
                FOR v_info IN
                \(CustomerInfoQuery.PlainTouchRenderAndStore.sql)
                LOOP
                    IF v_info.body IS NOT NULL THEN
                        RETURN QUERY SELECT v_new.inserted_type, v_new.inserted_credited, v_start.product_id,
                            v_info.body, v_info.last_seen, v_start.customer, v_info.next_change;
                        RETURN;
                    END IF;
                END LOOP;
                FOR v_info IN
                \(CustomerInfoQuery.TouchRenderAndStore.sql)
                LOOP
                    RETURN QUERY SELECT v_new.inserted_type, v_new.inserted_credited, v_start.product_id,
                        v_info.body, v_info.last_seen, v_start.customer, v_info.next_change;
                    RETURN;
                END LOOP;
                RETURN QUERY SELECT v_new.inserted_type, v_new.inserted_credited, v_start.product_id,
                    NULL::text, NULL::timestamptz, v_start.customer, NULL::timestamptz;
            END
            """)

    /// What the entitlements service installs with its migrations.
    static let routines = [insert, apply]

    /// Whether `request` may be what the routine handles: one transaction presented by a customer, which names no
    /// app account (the apply checks those against the customer's aliases) and which the store reports neither
    /// revoked nor reinstated. The routine decides the rest.
    static func handles(_ request: ApplyRequest) -> Bool {
        guard request.appUserID != nil, request.transactions.count == 1, let transaction = request.transactions.first
        else { return false }
        return transaction.appAccountToken == nil && transaction.obfuscatedAccountID == nil
            && transaction.revocationDate == nil && transaction.revocationReason == nil
            && transaction.revocationReversedAt == nil
    }

    /// A purchase the routine applied: its outcome, the presenter's customer and its info as committed.
    struct Applied: Sendable {
        var outcome: TransactionOutcome
        var customerID: UUID
        var info: String?
    }

    /// Applies `request` (``handles(_:)``) for `appID` by the routine, committed when this returns; `nil` when the
    /// routine declined it, PostgreSQL aborted it to resolve a deadlock, or a routine is missing (dropped while the
    /// service runs): nothing of the purchase was written, and the caller applies it in full.
    static func run(_ request: ApplyRequest, appID: String, client: PostgresClient, logger: Logger) async throws
        -> Applied?
    {
        guard handles(request), let appUserID = request.appUserID, let transaction = request.transactions.first else {
            return nil
        }
        let bindings = try PostgresBindings(
            appID, appUserID, transaction.store.rawValue, transaction.originalTransactionID,
            transaction.storeProductID, transaction.environment.rawValue, transaction.ownershipType.rawValue,
            transaction.originalPurchaseDate ?? transaction.purchaseDate, transaction.transactionID,
            transaction.quantity, transaction.expiresDate, request.appVersion, transaction.purchaseDate,
            transaction.priceMilliunits, transaction.currency, transaction.storefront, request.deviceID,
            try PurchaseApplier.eventPayloadOfNew(transaction), transaction.type?.rawValue)
        let rows: [Applied]
        do {
            rows = try await client.withConnection { connection in
                try await connection.run(Call.self, bindings, logger: logger) { row in
                    let (type, _, productID, body, lastSeen, customerID, _) = try row.decode(
                        (String, Int64?, String?, String?, Date?, UUID, Date?).self)
                    let outcome = TransactionOutcome(
                        store: transaction.store, transactionID: transaction.transactionID, productID: productID,
                        outcome: PurchaseApplier.outcomeOfNew(productID: productID, type: ProductType(rawValue: type)))
                    let info = body.flatMap { body in
                        lastSeen.map { CustomerInfoText.assemble(body: body, appUserID: appUserID, lastSeen: $0) }
                    }
                    return Applied(outcome: outcome, customerID: customerID, info: info)
                }
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" {
            return nil
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42883" {
            // A routine dropped while the service runs (the next readiness check installs it again): nothing was
            // written, and the full apply does the same in its five round trips.
            logger.warning("routine missing; applying in full", metadata: ["routine": "\(apply.name)"])
            return nil
        }
        return rows.first
    }

    /// The routine's call: ``apply``'s nineteen arguments.
    enum Call: PreparedSQL {
        static let sql = """
            SELECT * FROM \(apply.name)(
                $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::timestamptz, $9::text,
                $10::bigint, $11::timestamptz, $12::text, $13::timestamptz, $14::bigint, $15::text, $16::text,
                $17::text, $18::text, $19::text)
            """
    }
}
