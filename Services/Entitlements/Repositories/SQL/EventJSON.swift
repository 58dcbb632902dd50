/// The JSON of an event, rendered by PostgreSQL, shared by the events API and the webhook body so that both show an
/// event byte for byte alike. Constant SQL only (no input), for `\(unescaped:)`; the event row is `e`, and, for
/// ``eventWithDelivery``, ``deliveryJoin`` gives the delivery row `d` (may be absent).
enum EventJSON {
    /// An event as delivered: `id`, `type`, `created_at`, `app_id`, `app_user_id`, `environment`, `data`.
    static let event = """
        jsonb_build_object(
            'id', e.event_id, 'type', e.type, 'created_at', entitlements.iso(e.created_at), 'app_id', e.app_id,
            'app_user_id', e.app_user_id, 'environment', e.environment, 'data', e.payload)
        """

    /// The state of delivery row `row` (an SQL alias): to which endpoint (`null` once it is deleted), how far.
    static func deliveryObject(_ row: String) -> String {
        """
        jsonb_build_object(
            'endpoint_id', \(row).endpoint_id, 'state', \(row).state, 'attempts', \(row).attempts,
            'last_status', \(row).last_status, 'last_error', \(row).last_error,
            'next_attempt_at', CASE WHEN \(row).state = 'pending' THEN entitlements.iso(\(row).next_attempt_at) END,
            'delivered_at', entitlements.iso(\(row).delivered_at))
        """
    }

    /// The join that makes `d` the event's delivery that most needs attention: a dead one first, then a pending one,
    /// then the oldest. With one endpoint, the one delivery.
    static let deliveryJoin = """
        LEFT JOIN LATERAL (
            SELECT w.* FROM entitlements.webhook_deliveries w WHERE w.event_id = e.event_id
            ORDER BY CASE w.state WHEN 'dead' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END, w.created_at, w.delivery_id
            LIMIT 1
        ) d ON true
        """

    /// The delivery `d`, or JSON `null` when the event has none (no endpoint matched it when it was written).
    static let delivery = "CASE WHEN d.event_id IS NULL THEN 'null'::jsonb ELSE \(deliveryObject("d")) END"

    /// Every delivery of the event, one per endpoint, oldest first.
    static let deliveries = """
        (SELECT coalesce(jsonb_agg(\(deliveryObject("w")) ORDER BY w.created_at, w.delivery_id), '[]'::jsonb)
         FROM entitlements.webhook_deliveries w WHERE w.event_id = e.event_id)
        """

    /// An event with its deliveries, as the events API shows it (with ``deliveryJoin``).
    static let eventWithDelivery =
        "(\(event) || jsonb_build_object('delivery', \(delivery), 'deliveries', \(deliveries)))"
}
