import Foundation
import Logging
import PostgresNIO

/// Finds an app's customers by what support is told: an app user id or alias (exact, or its beginning), a store
/// transaction id or original transaction id (a Google Play order id `GPA.…` is both: Google's order id is the
/// transaction id Shopkeeper records, the first order's id the original one). Each lookup is an index probe scoped to
/// the app (migration `0019_customer_search_indexes`).
///
/// Apple's order ids (the id on Apple's email receipt) are not in any signed transaction, so nothing recorded holds
/// them: those are found by asking Apple, `GET /v1/admin/stores/apple/orders/{order_id}`, which the answer names
/// when the query has their shape.
enum CustomerSearchQuery {
    /// The search document for `query`: `query`, `matches` (each with the `matched` field, its `value`, the `store`
    /// of a transaction match, the customer's `app_user_ids`, `first_seen` and `last_seen`) and `apple_order_lookup`.
    static func render(
        appID: String, query: String, limit: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> String {
        let prefix = escapedForLike(query) + "%"
        let appleLookup = looksLikeAppleOrderID(query) ? "/v1/admin/stores/apple/orders/\(query)" : nil
        let rows = try await connection.query(
            """
            WITH hits AS (
                (SELECT a.customer_id, 'app_user_id' AS field, a.app_user_id AS value, NULL::text AS store,
                        CASE WHEN a.app_user_id = \(query) THEN 0 ELSE 3 END AS rank
                 FROM entitlements.aliases a
                 WHERE a.app_id = \(appID) AND a.app_user_id LIKE \(prefix) ESCAPE '\\'
                 ORDER BY a.app_user_id LIMIT \(limit))
                UNION ALL
                (SELECT p.customer_id,
                        CASE WHEN t.store = 'play_store' AND t.transaction_id LIKE 'GPA.%' THEN 'google_order_id'
                             ELSE 'transaction_id' END,
                        t.transaction_id, t.store, 1
                 FROM entitlements.transactions t
                 JOIN entitlements.purchases p
                     ON p.store = t.store AND p.original_transaction_id = t.original_transaction_id
                 WHERE t.app_id = \(appID) AND t.transaction_id = \(query)
                 LIMIT \(limit))
                UNION ALL
                (SELECT p.customer_id,
                        CASE WHEN p.store = 'play_store' AND p.original_transaction_id LIKE 'GPA.%'
                             THEN 'google_order_id' ELSE 'original_transaction_id' END,
                        p.original_transaction_id, p.store, 2
                 FROM entitlements.purchases p
                 WHERE p.app_id = \(appID) AND p.original_transaction_id = \(query)
                 LIMIT \(limit))
            ), found AS (
                SELECT DISTINCT ON (coalesce(cu.merged_into, cu.customer_id), h.field, h.value)
                       coalesce(cu.merged_into, cu.customer_id) AS customer_id, h.field, h.value, h.store, h.rank
                FROM hits h JOIN entitlements.customers cu ON cu.customer_id = h.customer_id
                ORDER BY coalesce(cu.merged_into, cu.customer_id), h.field, h.value, h.rank
            ), page AS (
                SELECT * FROM found ORDER BY rank, value LIMIT \(limit)
            )
            SELECT jsonb_build_object(
                'query', \(query)::text,
                'matches', coalesce((
                    SELECT jsonb_agg(jsonb_build_object(
                        'matched', f.field, 'value', f.value, 'store', f.store,
                        'app_user_ids', (
                            SELECT jsonb_agg(a.app_user_id ORDER BY a.created_at, a.app_user_id)
                            FROM entitlements.aliases a WHERE a.customer_id = f.customer_id),
                        'first_seen', entitlements.iso(cu.first_seen), 'last_seen', entitlements.iso(cu.last_seen))
                        ORDER BY f.rank, f.value)
                    FROM page f JOIN entitlements.customers cu ON cu.customer_id = f.customer_id), '[]'::jsonb),
                'apple_order_lookup', \(appleLookup)::text
            )::text
            """,
            logger: logger)
        for try await json in rows.decode(String.self) { return json }
        return "{\"query\":\"\",\"matches\":[],\"apple_order_lookup\":null}"
    }

    /// `text` with LIKE's wildcards and escape character escaped (`\`).
    static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Whether `text` has the shape of an App Store order id: 8 to 16 capital letters and digits (`MK5TTTVWJH`).
    static func looksLikeAppleOrderID(_ text: String) -> Bool {
        (8...16).contains(text.count)
            && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
            && text.unicodeScalars.contains { ("A"..."Z").contains($0) }
    }
}
