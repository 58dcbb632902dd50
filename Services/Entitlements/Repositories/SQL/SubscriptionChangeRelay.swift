import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase

/// Relays the subscriptions service's outbox (`subscriptions.changes_v1`) into this service's events: each change
/// becomes an event of the customer that owns the subscription (or started the trial), with a webhook delivery and
/// a cache invalidation. One replica at a time holds the cursor row; the others skip their turn rather than queue
/// behind it (a queue of waiting relays would hold back `pg_snapshot_xmin`, and with it every relay). A change is
/// relayed once.
struct SubscriptionChangeRelay: Sendable {
    let client: PostgresClient
    let logger: Logger
    var batchSize = 500

    /// Creates the cursor row when it does not exist yet; call once before relaying.
    func ensureCursor() async throws {
        try await client.withConnection { connection in
            try await connection.run(EnsureCursor.self, try PostgresBindings(Self.cursorName), logger: logger)
        }
    }

    /// Relays one batch; returns how many changes it read (0 as well when another replica holds the cursor).
    ///
    /// Parked changes (relayed before anyone owned their purchase) are looked at on every round, not only when new
    /// changes arrive: the purchase's apply usually commits just after its subscription change is read, and a quiet
    /// system may send nothing new for hours.
    func relayOnce() async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            guard
                let (tx, sequence) = try await connection.run(
                    LockCursor.self, try PostgresBindings(Self.cursorName), logger: logger,
                    decode: { try $0.decode((String, Int64).self) }
                ).first
            else { return 0 }
            // Parked changes whose purchase has an owner now go first: they happened before this batch's.
            var ready = EventRows()
            for (app, customer, type, environment, payload) in try await connection.run(
                Unpark.self, PostgresBindings(), logger: logger,
                decode: { try $0.decode((String, UUID, String, String?, String).self) })
            {
                ready.append(app: app, customer: customer, type: type, environment: environment, payload: payload)
            }
            let rows = try await connection.run(
                Batch.self, try PostgresBindings(tx, sequence, batchSize), logger: logger
            ) { row in
                try row.decode(
                    (Int64, String, String, String, String?, String?, String?, UUID?, String, Date).self)
            }
            var parked = ParkedRows()
            for (sequence, _, app, type, store, transaction, environment, owner, payload, created) in rows {
                if let owner {
                    ready.append(app: app, customer: owner, type: type, environment: environment, payload: payload)
                } else if let store, let transaction {
                    parked.append(
                        sequence: sequence, app: app, type: type, store: store, transaction: transaction,
                        environment: environment, payload: payload, created: created)
                }
            }
            if !parked.sequences.isEmpty {
                try await connection.run(Park.self, try parked.bindings(), logger: logger)
            }
            if !ready.apps.isEmpty {
                // Emitting forgets the customers' stored info (a row each): their locks first, in the order every
                // change takes them, so this never waits on a change in a circle.
                try await CustomerLocks.lock(Set(ready.customers), on: connection, logger: logger)
                try await connection.run(Emit.self, try ready.bindings(), logger: logger)
            }
            if let last = rows.last {
                let (_, tx, _, _, _, _, _, _, _, _) = last
                try await connection.run(
                    Advance.self, try PostgresBindings(Self.cursorName, tx, last.0), logger: logger)
            }
            return rows.count
        }
    }

    static let cursorName = "subscriptions.changes"

    private enum EnsureCursor: PreparedSQL {
        static let sql = """
            INSERT INTO entitlements.relay_cursors (name, tx, sequence) VALUES ($1::text, '0'::xid8, 0)
            ON CONFLICT (name) DO NOTHING
            """
    }

    /// The cursor, locked for this round; nothing when another replica holds it.
    private enum LockCursor: PreparedSQL {
        static let sql = """
            SELECT tx::text, sequence FROM entitlements.relay_cursors WHERE name = $1::text FOR UPDATE SKIP LOCKED
            """
    }

    /// The next changes after the cursor (`$1`, `$2`) whose transactions are older than every running one, each
    /// with its owner (`NULL` while no customer owns the purchase).
    private enum Batch: PreparedSQL {
        static let sql = """
            SELECT ch.sequence, ch.tx::text, ch.app_id, ch.type, ch.store, ch.original_transaction_id, ch.environment,
                   coalesce(ch.customer_id, p.customer_id), ch.payload::text, ch.created_at
            FROM subscriptions.changes_v1 ch
            LEFT JOIN entitlements.purchases p ON ch.customer_id IS NULL AND p.store = ch.store
                AND p.original_transaction_id = ch.original_transaction_id
            WHERE (ch.tx, ch.sequence) > ($1::text::xid8, $2::bigint)
              AND ch.tx < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY ch.tx, ch.sequence
            LIMIT $3::bigint
            """
    }

    private enum Advance: PreparedSQL {
        static let sql = """
            UPDATE entitlements.relay_cursors SET tx = $2::text::xid8, sequence = $3::bigint WHERE name = $1::text
            """
    }

    private enum Park: PreparedSQL {
        static let sql = """
            INSERT INTO entitlements.parked_changes (
                sequence, app_id, type, store, original_transaction_id, environment, payload, created_at)
            SELECT s, a, t, st, o, nullif(e, ''), p::jsonb, c
            FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                        $8::timestamptz[]) AS u(s, a, t, st, o, e, p, c)
            ON CONFLICT (sequence) DO NOTHING
            """
    }

    /// Parked changes whose purchase has an owner now (removed and returned in the order they happened), and old
    /// ones dropped.
    private enum Unpark: PreparedSQL {
        static let sql = """
            WITH dropped AS (
                DELETE FROM entitlements.parked_changes WHERE created_at < now() - interval '7 days'
            ), unparked AS (
                DELETE FROM entitlements.parked_changes pk
                USING entitlements.purchases p
                WHERE p.store = pk.store AND p.original_transaction_id = pk.original_transaction_id
                RETURNING pk.sequence, pk.app_id, p.customer_id, pk.type, pk.environment, pk.payload::text
            )
            SELECT app_id, customer_id, type, environment, payload FROM unparked ORDER BY sequence
            """
    }

    /// Events, in order (fanned out to the apps' webhook endpoints by `events_fan_out`), and a cache invalidation
    /// each (the replicas' memory and the stored info).
    private enum Emit: PreparedSQL {
        static let sql = """
            WITH input AS (
                SELECT app_id, customer_id, type, nullif(environment, '') AS environment, payload, position
                FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[])
                    WITH ORDINALITY AS i(app_id, customer_id, type, environment, payload, position)
            ), event AS (
                INSERT INTO entitlements.events (app_id, customer_id, app_user_id, type, environment, payload)
                SELECT i.app_id, i.customer_id, \(EventOutbox.customerName("i.customer_id")),
                       i.type, i.environment, i.payload::jsonb
                FROM input i ORDER BY i.position
                RETURNING event_id, app_id, customer_id
            )
            SELECT count(*) FROM (
                SELECT pg_notify('entitlements_customer_changed', x.customer_id::text),
                       entitlements.forget_customer_document(x.customer_id)
                FROM (SELECT DISTINCT customer_id FROM event ORDER BY customer_id) AS x) AS notified
            """
    }
}

/// Columns of events to emit, as arrays for one statement.
private struct EventRows {
    var apps: [String] = []
    var customers: [UUID] = []
    var types: [String] = []
    /// `""` for none (arrays of optionals do not bind).
    var environments: [String] = []
    var payloads: [String] = []

    mutating func append(app: String, customer: UUID, type: String, environment: String?, payload: String) {
        apps.append(app)
        customers.append(customer)
        types.append(type)
        environments.append(environment ?? "")
        payloads.append(payload)
    }

    func bindings() throws -> PostgresBindings {
        try PostgresBindings(apps, customers, types, environments, payloads)
    }
}

/// Columns of changes to park, as arrays for one statement.
private struct ParkedRows {
    var sequences: [Int64] = []
    var apps: [String] = []
    var types: [String] = []
    var stores: [String] = []
    var transactions: [String] = []
    /// `""` for none (arrays of optionals do not bind).
    var environments: [String] = []
    var payloads: [String] = []
    var created: [Date] = []

    mutating func append(
        sequence: Int64, app: String, type: String, store: String, transaction: String, environment: String?,
        payload: String, created: Date
    ) {
        sequences.append(sequence)
        apps.append(app)
        types.append(type)
        stores.append(store)
        transactions.append(transaction)
        environments.append(environment ?? "")
        payloads.append(payload)
        self.created.append(created)
    }

    func bindings() throws -> PostgresBindings {
        try PostgresBindings(sequences, apps, types, stores, transactions, environments, payloads, created)
    }
}
