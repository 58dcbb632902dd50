import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// Renders a customer's info as JSON in one statement, so reading it costs one round trip and no decoding.
///
/// The shape is ``ShopkeeperModels/CustomerInfo`` (tests decode every answer into it and check it against the
/// OpenAPI document). Purchase entitlements are read through the catalog's published view at render time, so a
/// change of a product's entitlement ids applies to purchases already made.
enum CustomerInfoQuery {
    /// The info of the customer `appUserID` names, and when the customer was last seen; `nil` when no customer has
    /// that id. Stored for the next read unless `storing` is false (a read-only transaction).
    ///
    /// `touching`: the customer is seen now as well (its `last_seen` set to the transaction's time, as
    /// ``CustomerRows/touch(_:on:logger:)`` does), in the same statement; for writes, which store what they render.
    /// `plainFirst` (with `touching`): tries the plain customer's shorter render first (``PlainTouchRenderAndStore``);
    /// for writes that leave the customer plain if it was (consumables, non-consumables).
    static func render(
        appID: String, appUserID: String, storing: Bool = true, touching: Bool = false, plainFirst: Bool = false,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> (json: String, lastSeen: Date)? {
        guard
            let rendered = try await renderDocument(
                appID: appID, appUserID: appUserID, storing: storing, touching: touching, plainFirst: plainFirst,
                on: connection, logger: logger)
        else { return nil }
        return (rendered.json, rendered.lastSeen)
    }

    /// The info of the customer `appUserID` names with what a cache needs to know about it; `nil` when no
    /// customer has that id. Stored for the next read (``RenderAndStore``) unless `storing` is false.
    static func renderDocument(
        appID: String, appUserID: String, storing: Bool = true, touching: Bool = false, plainFirst: Bool = false,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> RenderedCustomer? {
        let bindings = try PostgresBindings(appID, appUserID)
        // A NULL body only comes from the plain render, for a customer that is not plain.
        let decode: @Sendable (PostgresRow) throws -> RenderedCustomer? = { row in
            let (body, lastSeen, customerID, nextChange) = try row.decode((String?, Date, UUID, Date?).self)
            guard let body else { return nil }
            // Completed as a stored read completes it (``StoredCustomerInfoRead``): the same info, the same bytes.
            let json = CustomerInfoText.assemble(body: body, appUserID: appUserID, lastSeen: lastSeen)
            return RenderedCustomer(
                json: json, body: body, lastSeen: lastSeen, customerID: customerID, nextChange: nextChange)
        }
        if plainFirst, storing, touching {
            let rows = try await connection.run(PlainTouchRenderAndStore.self, bindings, logger: logger, decode: decode)
            // No row: no such customer. A row without a body: not plain, rendered in full below.
            guard let row = rows.first else { return nil }
            if let rendered = row { return rendered }
        }
        let rows: [RenderedCustomer?]
        switch (storing, touching) {
        case (true, true):
            rows = try await connection.run(TouchRenderAndStore.self, bindings, logger: logger, decode: decode)
        case (true, false):
            rows = try await connection.run(RenderAndStore.self, bindings, logger: logger, decode: decode)
        case (false, _):
            precondition(!touching, "a read-only render touches nothing")
            rows = try await connection.run(Render.self, bindings, logger: logger, decode: decode)
        }
        return rows.first ?? nil
    }

    /// A rendered customer info.
    struct RenderedCustomer: Sendable {
        var json: String
        /// The rendered info without `app_user_id` and `last_seen` (``CustomerInfoText/assemble(body:appUserID:lastSeen:)``).
        var body: String
        var lastSeen: Date
        var customerID: UUID
        /// When an end or a start passes and the info changes without a write; `nil` when none is ahead.
        var nextChange: Date?
    }

    /// Where a customer's info comes from, as the common table expressions both the info (``rendering(storing:touching:)``) and its
    /// explanation (``CustomerExplanationQuery``) select from, so that the two can never disagree: `c` (the customer
    /// `$2` names in app `$1`), `ids` (it and the customers merged into it), `subs` (auto-renewable purchases and
    /// their timelines), `nr` and `stacks` (non-renewing purchases stacked per group), `trial` (the app's own trial),
    /// `owned` (products owned without a purchase), `grants` (every source of every entitlement, active or not, with
    /// the `reference` (purchase's original transaction id, promotional grant's id) and `state` that explain it) and
    /// `best` (the one source per entitlement that customer info shows).
    static let sources = sources(touching: false)

    /// ``sources``; `touching`: the customer is seen now, its `last_seen` written and read as `now()`.
    static func sources(touching: Bool) -> String {
        """
        WITH c AS (
            SELECT cu.customer_id, cu.first_seen, \(touching ? "now() AS last_seen" : "cu.last_seen"), cu.refund_count
            FROM entitlements.aliases a JOIN entitlements.customers cu ON cu.customer_id = a.customer_id
            WHERE a.app_id = $1 AND a.app_user_id = $2
        ), \(touching ? touched : "")ids AS (
        \(sourcesAfterCustomer)
        """
    }

    /// The customer seen now (a change of `last_seen` alone forgets no stored info: migration 0022).
    private static let touched = """
        touched AS (
            UPDATE entitlements.customers SET last_seen = now() WHERE customer_id = (SELECT customer_id FROM c)
        ),\u{20}
        """

    private static let sourcesAfterCustomer = """

            SELECT c.customer_id FROM c
            UNION ALL
            SELECT m.customer_id FROM c JOIN entitlements.customers m ON m.merged_into = c.customer_id
        ), subs AS (
            -- Auto-renewable purchases with their timelines (the purchase alone, one paid period, until the
            -- subscriptions service has applied it); the state by subscriptions' rule (subscriptions.effective_state).
            SELECT coalesce(s.product_id, p.product_id) AS product_id, p.store_product_id, p.store, p.environment,
                   p.original_transaction_id, p.purchase_date, s.group_key, e.state,
                   subscriptions.grants_access(e.state) AS active,
                   coalesce(s.period_type, 'normal') AS period_type, coalesce(s.started_at, p.purchase_date)
                       AS started_at,
                   coalesce(s.expires_at, p.expires_date) AS expires_at,
                   coalesce(s.access_until, p.revoked_at, p.expires_date) AS access_until,
                   s.will_renew, s.renews_into_store_product_id, s.grace_expires_at, s.expiration_reason,
                   coalesce(s.refunded_at, CASE WHEN s.store IS NULL THEN p.revoked_at END) AS refunded_at,
                   s.revoked_at
            FROM c
            JOIN entitlements.purchases p ON p.customer_id = c.customer_id AND p.product_type = \(ProductType.autoRenewable.sql)
            LEFT JOIN subscriptions.subscriptions_v1 s
                ON s.store = p.store AND s.original_transaction_id = p.original_transaction_id
            CROSS JOIN LATERAL (
                SELECT coalesce(s.state, subscriptions.effective_state(
                    'normal', p.purchase_date, p.expires_date, NULL, p.revoked_at, 'refunded', NULL, NULL, false,
                    false, now())) AS state) e
        ), nr AS (
            -- Non-renewing purchases stack end to end per group: each extends the end by its duration from the
            -- later of its purchase and the end so far, so the group ends at max(purchase + the durations of it
            -- and every later purchase).
            SELECT p.product_id, p.store_product_id, p.store, p.environment, p.original_transaction_id,
                   p.purchase_date, coalesce(pr.product_group, pr.product_id) AS group_key,
                   p.purchase_date + sum(coalesce(pr.duration, 'PT0S')::interval) OVER (
                       PARTITION BY coalesce(pr.product_group, pr.product_id)
                       ORDER BY p.purchase_date DESC, p.original_transaction_id DESC
                       ROWS UNBOUNDED PRECEDING) AS reach
            FROM c
            JOIN entitlements.purchases p ON p.customer_id = c.customer_id AND p.product_type = \(ProductType.nonRenewing.sql)
                AND p.revoked_at IS NULL
            JOIN catalog.products_v1 pr ON pr.app_id = p.app_id AND pr.product_id = p.product_id
        ), stacks AS (
            SELECT DISTINCT ON (group_key) group_key, product_id, store_product_id, store, environment,
                   original_transaction_id, max(reach) OVER (PARTITION BY group_key) AS ends_at,
                   min(purchase_date) OVER (PARTITION BY group_key) AS started_at
            FROM nr
            ORDER BY group_key, purchase_date DESC, original_transaction_id DESC
        ), trial AS (
            -- A lookup by the key (app, customer) per customer id (one trial each at most), never the app's trials.
            SELECT t.product_id, t.started_at, t.ends_at, t.active
            FROM ids CROSS JOIN LATERAL (
                SELECT * FROM subscriptions.trials_v1 t WHERE t.app_id = $1 AND t.customer_id = ids.customer_id
                LIMIT 1) t
            ORDER BY t.started_at LIMIT 1
        ), owned AS (
            -- Products owned without a store purchase: free claims (a customer merged into this one may hold
            -- them) and the non-consumables the customer's app transactions prove by the catalog's rules now.
            SELECT DISTINCT ON (x.product_id) x.product_id, x.source, x.claimed_at FROM (
                SELECT k.product_id, 'free' AS source, k.claimed_at
                FROM entitlements.content_claims k
                WHERE k.app_id = $1 AND k.revoked_at IS NULL AND k.customer_id = ANY (ARRAY(SELECT customer_id FROM ids))
                UNION ALL
                SELECT pr.product_id,
                       CASE WHEN t.variant IS NOT NULL AND coalesce(pr.included_in_variants, '[]'::jsonb) ? t.variant
                            THEN 'included' ELSE 'grandfathered' END,
                       t.first_seen
                FROM entitlements.app_transactions t
                JOIN catalog.products_v1 pr ON pr.app_id = $1 AND pr.type = \(ProductType.nonConsumable.sql)
                -- (the customers are the app's: by customer alone, so the customer index is the one used)
                WHERE t.customer_id = ANY (ARRAY(SELECT customer_id FROM ids))
                  AND ((t.variant IS NOT NULL AND coalesce(pr.included_in_variants, '[]'::jsonb) ? t.variant)
                       OR entitlements.version_key(t.original_application_version)
                          < entitlements.version_key(pr.grandfathered_below_version))
            ) x
            ORDER BY x.product_id, x.claimed_at
        ), grants AS (
        \(Sections.purchaseGrants)
            UNION ALL
            SELECT e.entitlement_id, s.active, s.access_until, s.product_id, s.purchase_date, s.store,
                   s.environment, 'subscription', s.original_transaction_id, s.state
            FROM subs s
            JOIN catalog.products_v1 pr ON pr.app_id = $1 AND pr.product_id = s.product_id
            CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                AS e(entitlement_id)
            UNION ALL
            SELECT e.entitlement_id, st.ends_at > now(), st.ends_at, n.product_id, n.purchase_date, n.store,
                   n.environment, 'subscription', n.original_transaction_id,
                   CASE WHEN st.ends_at > now() THEN 'active' ELSE 'expired' END
            FROM nr n JOIN stacks st ON st.group_key = n.group_key
            JOIN catalog.products_v1 pr ON pr.app_id = $1 AND pr.product_id = n.product_id
            CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                AS e(entitlement_id)
            UNION ALL
            SELECT e.entitlement_id, t.active, t.ends_at, t.product_id, t.started_at, NULL, NULL, 'trial', NULL,
                   CASE WHEN t.active THEN 'active' ELSE 'expired' END
            FROM trial t
            JOIN catalog.products_v1 pr ON pr.app_id = $1 AND pr.product_id = t.product_id
            CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                AS e(entitlement_id)
            UNION ALL
            SELECT e.entitlement_id, true, NULL, o.product_id, o.claimed_at, NULL, NULL, o.source, NULL, 'owned'
            FROM owned o
            JOIN catalog.products_v1 pr ON pr.app_id = $1 AND pr.product_id = o.product_id
            CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(pr.entitlements, '[]'::jsonb))
                AS e(entitlement_id)
            UNION ALL
            SELECT g.entitlement_id,
                   g.revoked_at IS NULL AND g.starts_at <= now() AND g.expires_at > now(),
                   least(g.revoked_at, g.expires_at),
                   NULL, g.starts_at, NULL, NULL, 'promotional', g.grant_id::text,
                   CASE WHEN g.revoked_at IS NOT NULL THEN 'revoked' WHEN g.starts_at > now() THEN 'scheduled'
                        WHEN g.expires_at <= now() THEN 'expired' ELSE 'active' END
            FROM c JOIN entitlements.promotional_grants g ON g.customer_id = c.customer_id
        ), \(Sections.best)
        """

    /// The order of an entitlement's sources, first the one customer info shows: active first, then the one that
    /// lasts longest (no end first), then the earliest.
    static let precedence = "active DESC, expires_at DESC NULLS FIRST, purchase_date"

    /// The info rendered and stored (`entitlements.customer_documents`) for the next read, unless something it shows
    /// changed since this statement's snapshot: then the version moved on and the row stays as the change left it.
    enum RenderAndStore: PreparedSQL {
        static let sql = rendering(storing: true)
    }

    /// ``RenderAndStore`` for a write that has the customer seen now: one statement for both.
    enum TouchRenderAndStore: PreparedSQL {
        static let sql = rendering(storing: true, touching: true)
    }

    /// The info rendered only: for read-only transactions.
    enum Render: PreparedSQL {
        static let sql = rendering(storing: false)
    }

    /// ``stored(subscriptionsStamp:catalogProducts:)`` of the full render.
    private static let storedRendering = stored(
        subscriptionsStamp: subscriptionsStamp(customer: "doc.customer_id"), catalogProducts: catalogRead)

    /// The statement rendering the info's body (the JSON object without `app_user_id` and `last_seen`, which the
    /// reader puts in: ``CustomerInfoText``) with the customer's `last_seen`, id and next change by itself.
    static func rendering(storing: Bool, touching: Bool = false) -> String {
        sources(touching: touching) + """
            , doc AS (
            SELECT c.customer_id, c.last_seen, jsonb_build_object(
                \(Sections.customerFields),
                'subscriptions', coalesce((
                    SELECT jsonb_agg(x.doc ORDER BY x.started_at, x.original_transaction_id) FROM (
                        SELECT s.started_at, s.original_transaction_id, jsonb_build_object(
                            'product_id', s.product_id, 'store_product_id', s.store_product_id,
                            'type', \(ProductType.autoRenewable.sql), 'store', s.store, 'environment', s.environment,
                            'original_transaction_id', s.original_transaction_id, 'state', s.state,
                            'active', s.active, 'period_type', s.period_type,
                            'started_at', entitlements.iso(s.started_at), 'expires_at', entitlements.iso(s.expires_at),
                            'will_renew', s.will_renew, 'renews_into_store_product_id', s.renews_into_store_product_id,
                            'grace_period_expires_at', entitlements.iso(s.grace_expires_at),
                            'expiration_reason', s.expiration_reason,
                            'refunded_at', entitlements.iso(s.refunded_at),
                            'revoked_at', entitlements.iso(s.revoked_at)) AS doc
                        FROM subs s
                        UNION ALL
                        SELECT st.started_at, st.original_transaction_id, jsonb_build_object(
                            'product_id', st.product_id, 'store_product_id', st.store_product_id,
                            'type', \(ProductType.nonRenewing.sql), 'store', st.store, 'environment', st.environment,
                            'original_transaction_id', st.original_transaction_id,
                            'state', CASE WHEN st.ends_at > now() THEN 'active' ELSE 'expired' END,
                            'active', st.ends_at > now(), 'period_type', 'normal',
                            'started_at', entitlements.iso(st.started_at), 'expires_at', entitlements.iso(st.ends_at),
                            'will_renew', false, 'renews_into_store_product_id', NULL,
                            'grace_period_expires_at', NULL, 'expiration_reason', NULL, 'refunded_at', NULL,
                            'revoked_at', NULL)
                        FROM stacks st) AS x), '[]'::jsonb),
                'trial', coalesce((
                    SELECT jsonb_build_object(
                        'state', CASE WHEN t.active THEN 'active' ELSE 'expired' END, 'product_id', t.product_id,
                        'started_at', entitlements.iso(t.started_at), 'expires_at', entitlements.iso(t.ends_at))
                    FROM trial t), jsonb_build_object('state', 'none')),
                \(Sections.purchaseFields),
                'product_grants', coalesce((
                    SELECT jsonb_agg(jsonb_build_object(
                        'product_id', o.product_id, 'source', o.source, 'granted_at', entitlements.iso(o.claimed_at))
                        ORDER BY o.claimed_at, o.product_id)
                    FROM owned o), '[]'::jsonb)
            )::text AS body, (
                -- The next moment the info changes by itself (an end or a start passes): a cache keeps it no longer.
                SELECT min(t) FROM (
                    \(Sections.purchaseEnds)
                    UNION ALL
                    SELECT s.access_until FROM subs s WHERE s.access_until > now()
                    UNION ALL
                    SELECT s.expires_at FROM subs s WHERE s.expires_at > now()
                    UNION ALL
                    SELECT s.grace_expires_at FROM subs s WHERE s.grace_expires_at > now()
                    UNION ALL
                    SELECT st.ends_at FROM stacks st WHERE st.ends_at > now()
                    UNION ALL
                    SELECT t.ends_at FROM trial t WHERE t.ends_at > now()
                    UNION ALL
                    SELECT g.starts_at FROM entitlements.promotional_grants g
                    WHERE g.customer_id = c.customer_id AND g.starts_at > now()
                    UNION ALL
                    SELECT g.expires_at FROM entitlements.promotional_grants g
                    WHERE g.customer_id = c.customer_id AND g.expires_at > now()
                ) AS changes(t)) AS next_change
            FROM c
            )\(storing ? storedRendering : "")
            SELECT doc.body, doc.last_seen, doc.customer_id, doc.next_change
            FROM doc
            """
    }
}
