import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels

extension PurchaseApplier {
    /// The statements of every purchase, prepared once per connection.
    enum SQL {
        enum BindDevice: PreparedSQL {
            // The count is taken before this statement's insert is visible: the devices that presented it before.
            static let sql = """
                WITH seen AS (
                \(devicePresented("VALUES ($1::text, $2::text, $3::text, $4::uuid)"))
                    RETURNING (xmax = 0) AS new
                )
                SELECT seen.new, (
                    SELECT count(*) FROM entitlements.purchase_devices
                    WHERE store = $1::text AND original_transaction_id = $2::text
                ) FROM seen
                """
        }

        enum RecordTransaction: PreparedSQL {
            static let sql = """
                \(transactionRecorded(
                """
                VALUES (
                    $1::text, $2::text, $3::text, $4::text, $5::uuid, $6::text, $7::text, $8::bigint,
                    $9::timestamptz, $10::timestamptz, $11::bigint, $12::text, $13::text, $14::text)
                """))
                RETURNING 1
                """
        }

        /// A device presenting a purchase, counted once (its `last_seen` and customer the latest presentation's):
        /// the insert of `values` (store, original transaction id, device id, customer), for a statement to extend.
        static func devicePresented(_ values: String) -> String {
            """
            INSERT INTO entitlements.purchase_devices AS d (store, original_transaction_id, device_id, customer_id)
            \(values)
            ON CONFLICT (store, original_transaction_id, device_id)
            DO UPDATE SET last_seen = now(), customer_id = excluded.customer_id
            """
        }

        /// A store transaction recorded once: the insert of `values` (store, transaction id, original transaction id,
        /// app, customer, environment, store product id, quantity, purchase date, expiry, price, currency, storefront,
        /// ownership), for a statement to extend.
        static func transactionRecorded(_ values: String) -> String {
            """
            INSERT INTO entitlements.transactions (
                store, transaction_id, original_transaction_id, app_id, customer_id, environment, store_product_id,
                quantity, purchase_date, expires_date, price_milliunits, currency, storefront, ownership_type)
            \(values)
            ON CONFLICT (store, transaction_id) DO NOTHING
            """
        }

        /// A consumable purchase's units credited once, in one statement: the purchase marked credited, the ledger
        /// line and balance (``Ledger``), and the `consumable_purchase` event (``EventOutbox``) with the units and the
        /// new balance. `$1` the catalog's consumable quantity (NULL: none), `$11` the transaction's quantity, the units
        /// decided as a new purchase's insert decides them (`entitlements.consumable_units_v1`); answers the units
        /// credited.
        enum Credit: PreparedSQL {
            static let sql = """
                WITH units AS (
                    SELECT entitlements.consumable_units_v1($1::bigint, $11::bigint) AS n
                ), credited AS (
                    UPDATE entitlements.purchases SET credited = (SELECT n FROM units), updated_at = now()
                    WHERE store = $2::text AND original_transaction_id = $3::text
                ), \(Ledger.posting(
                    app: "$4::text", customer: "$5::uuid", product: "$6::text", delta: "units.n",
                    reason: "'\(Ledger.Reason.purchase.rawValue)'", store: "$2::text", transaction: "$7::text",
                    key: "NULL", source: "FROM units")), \(EventOutbox.appending(
                    """
                    SELECT $4::text, $5::uuid, $8::text, '\(EventType.consumablePurchase.rawValue)', $9::text,
                           $10::text::jsonb || jsonb_build_object('quantity', units.n, 'balance', balance.balance)
                    FROM balance CROSS JOIN units
                    """))
                SELECT n FROM units
                """
        }
    }
}
