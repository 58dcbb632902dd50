/// The JSON of an event, rendered by PostgreSQL, shared by the events API and the webhook body so that both show an
/// event byte for byte alike. Constant SQL only (no input), for `\(unescaped:)`; the event row is `e`, its delivery
/// row `d` (may be absent).
enum EventJSON {
    /// An event as delivered: `id`, `type`, `created_at`, `app_id`, `app_user_id`, `environment`, `data`.
    static let event = """
        jsonb_build_object(
            'id', e.event_id, 'type', e.type, 'created_at', entitlements.iso(e.created_at), 'app_id', e.app_id,
            'app_user_id', e.app_user_id, 'environment', e.environment, 'data', e.payload)
        """

    /// The delivery state of `d`, or JSON `null` when the event has no delivery (no webhook when it was written).
    static let delivery = """
        CASE WHEN d.event_id IS NULL THEN 'null'::jsonb ELSE jsonb_build_object(
            'state', d.state, 'attempts', d.attempts, 'last_status', d.last_status, 'last_error', d.last_error,
            'next_attempt_at', CASE WHEN d.state = 'pending' THEN entitlements.iso(d.next_attempt_at) END,
            'delivered_at', entitlements.iso(d.delivered_at)) END
        """

    /// An event with its delivery, as the events API shows it.
    static let eventWithDelivery = "(\(event) || jsonb_build_object('delivery', \(delivery)))"
}
