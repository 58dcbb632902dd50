import HTTPTypes

/// The gateway's public paths and the methods each accepts: the `paths` of `docs/openapi.yaml`, which a test holds
/// this table to.
///
/// The services behind the gateway route by prefix, and Hummingbird answers an unknown method on a known path
/// with 404. With this table the gateway answers it as HTTP says: `405 method_not_allowed` with an `Allow` header
/// (``MethodNotAllowedMiddleware``).
struct PublicRoutes: Sendable {
    /// One path template: literal segments and `{parameter}` segments, each matching one non-empty segment.
    struct Template: Sendable {
        let path: String
        let segments: [Substring?]
        let methods: [HTTPRequest.Method]

        init(_ path: String, _ methods: [HTTPRequest.Method]) {
            self.path = path
            self.segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                $0.hasPrefix("{") ? nil : $0
            }
            self.methods = methods
        }

        /// ``matches(_:)`` of `path`'s segments (split at every `/`, empty ones kept, the part before the first
        /// dropped), read in place.
        func matches(path: Substring) -> Bool {
            let slash = UInt8(ascii: "/")
            guard var start = path.utf8.firstIndex(of: slash) else { return segments.isEmpty }
            for literal in segments {
                // `start` is at the "/" before this segment, or at the end: the path has fewer segments.
                guard start != path.endIndex else { return false }
                let from = path.utf8.index(after: start)
                let end = path.utf8[from...].firstIndex(of: slash) ?? path.endIndex
                let segment = path[from..<end]
                if let literal {
                    guard literal == segment else { return false }
                } else if segment.isEmpty {
                    return false
                }
                start = end
            }
            return start == path.endIndex
        }

        func matches(_ segments: [Substring]) -> Bool {
            guard segments.count == self.segments.count else { return false }
            return zip(segments, self.segments).allSatisfy { segment, literal in
                literal.map { $0 == segment } ?? !segment.isEmpty
            }
        }
    }

    let templates: [Template]

    /// Whether `method` is documented for `path`, or no documented path matches it: what ``allowedMethods(for:)``
    /// says, without building the segments and the list (the connection pipeline asks for every request it takes).
    func allows(_ method: HTTPRequest.Method, path: Substring) -> Bool {
        // A path has as many segments as slashes: templates of another length are passed over without reading them.
        var count = 0
        for byte in path.utf8 where byte == UInt8(ascii: "/") { count += 1 }
        var matched = false
        for template in templates where template.segments.count == count && template.matches(path: path) {
            if template.methods.contains(method) { return true }
            matched = true
        }
        return !matched
    }

    /// Whether a documented path may lie under the route prefix of these `segments` (a `*` matching any one): when
    /// none does, ``allows(_:path:)`` is true for every path under it and need not be asked.
    func documentsPaths(under segments: [Substring]) -> Bool {
        templates.contains { template in
            template.segments.count >= segments.count
                && zip(template.segments, segments).allSatisfy { literal, segment in
                    segment == "*" || literal.map { $0 == segment } ?? true
                }
        }
    }

    /// The methods documented for `path`, or `nil` when no documented path matches it (it is left to the router).
    func allowedMethods(for path: String) -> [HTTPRequest.Method]? {
        let segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        var allowed: [HTTPRequest.Method] = []
        for template in templates where template.matches(segments) {
            for method in template.methods where !allowed.contains(method) { allowed.append(method) }
        }
        return allowed.isEmpty ? nil : allowed
    }

    /// Shopkeeper's public API.
    static let shopkeeper = PublicRoutes(templates: [
        Template("/v1/catalog", [.get, .head]),
        Template("/v1/admin/products", [.get, .post]),
        Template("/v1/admin/products/{product_id}", [.get, .put, .delete]),
        Template("/v1/admin/catalog", [.get, .put]),
        Template("/v1/admin/catalog/sync", [.post]),
        Template("/v1/admin/catalog/sync/last", [.get]),
        Template("/v1/offerings", [.get, .head]),
        Template("/v1/admin/offerings", [.get, .put, .post]),
        Template("/v1/admin/offerings/{offering_id}", [.get, .put, .delete]),
        Template("/v1/admin/offering-rules", [.get, .put]),
        Template("/v1/admin/experiments", [.get, .post]),
        Template("/v1/admin/experiments/{experiment_id}", [.get, .put]),
        Template("/v1/admin/experiments/{experiment_id}/start", [.post]),
        Template("/v1/admin/experiments/{experiment_id}/stop", [.post]),
        Template("/v1/purchases", [.post]),
        Template("/v1/receipts/validate", [.post]),
        Template("/v1/notifications/apple", [.post]),
        Template("/v1/notifications/google", [.post]),
        Template("/v1/notifications/stripe", [.post]),
        Template("/v1/customers/{app_user_id}", [.get]),
        Template("/v1/customers/{app_user_id}/restore", [.post]),
        Template("/v1/customers/{app_user_id}/checkout", [.post]),
        Template("/v1/customers/{app_user_id}/portal", [.post]),
        Template("/v1/customers/{app_user_id}/subscriptions/{subscription_id}/cancel", [.post]),
        Template("/v1/customers/{app_user_id}/aliases", [.post]),
        Template("/v1/customers/{app_user_id}/redemption-codes", [.post]),
        Template("/v1/customers/{app_user_id}/redeem", [.post]),
        Template("/v1/customers/{app_user_id}/consumables/{product_id}/consume", [.post]),
        Template("/v1/customers/{app_user_id}/claims", [.post]),
        Template("/v1/customers/{app_user_id}/grants", [.post]),
        Template("/v1/customers/{app_user_id}/grants/{grant_id}", [.delete]),
        Template("/v1/customers/{app_user_id}/history", [.get]),
        Template("/v1/customers/{app_user_id}/trial", [.get, .post]),
        Template("/v1/customers/{app_user_id}/eligibility", [.get]),
        Template("/v1/customers/{app_user_id}/offer-signatures", [.post]),
        Template("/v1/customers/{app_user_id}/content/reset", [.post]),
        Template("/v1/admin/purchases/{store}/{original_transaction_id}/devices", [.delete]),
        Template("/v1/admin/stores", [.get]),
        Template("/v1/admin/stores/{store}", [.put, .delete]),
        Template("/v1/admin/stores/{store}/orders/{order_id}", [.get]),
        Template("/v1/admin/stores/{store}/refunds", [.get]),
        Template("/v1/admin/stores/{store}/notification-recovery", [.get, .post]),
        Template("/v1/admin/stores/{store}/subscriptions/{original_transaction_id}/extend", [.post]),
        Template("/v1/admin/keys", [.get, .post]),
        Template("/v1/admin/keys/{key_id}", [.delete]),
        Template("/v1/admin/customer-boundary", [.get, .put]),
        Template("/v1/admin/customer-boundary/secrets", [.post]),
        Template("/v1/admin/customer-boundary/secrets/{secret_id}", [.delete]),
        Template("/v1/admin/customer-boundary/public-keys", [.post]),
        Template("/v1/admin/customer-boundary/public-keys/{key_id}", [.delete]),
        Template("/v1/admin/answer-signing", [.get]),
        Template("/v1/admin/answer-signing/keys", [.post]),
        Template("/v1/admin/answer-signing/keys/{key_id}", [.delete]),
        Template("/v1/admin/answer-signing/keys/{key_id}/activate", [.post]),
        Template("/v1/admin/entitlements/settings", [.get, .put]),
        Template("/v1/admin/entitlements/webhook-secret", [.post]),
        Template("/v1/admin/events", [.get]),
        Template("/v1/admin/events/{event_id}", [.get]),
        Template("/v1/admin/events/{event_id}/replay", [.post]),
        Template("/v1/admin/webhook-endpoints", [.get, .post]),
        Template("/v1/admin/webhook-endpoints/{endpoint_id}", [.get, .put, .delete]),
        Template("/v1/admin/webhook-endpoints/{endpoint_id}/secret", [.post]),
        Template("/v1/admin/webhook-endpoints/{endpoint_id}/stats", [.get]),
        Template("/v1/admin/reports/sales", [.get]),
        Template("/v1/admin/reports/usage", [.get]),
        Template("/v1/admin/reports/consumables", [.get]),
        Template("/v1/admin/reports/mrr", [.get]),
        Template("/v1/admin/reports/activity", [.get]),
        Template("/v1/admin/reports/trial-conversion", [.get]),
        Template("/v1/admin/reports/retention", [.get]),
        Template("/v1/admin/reports/churn", [.get]),
        Template("/v1/admin/reports/refunds", [.get]),
        Template("/v1/admin/reports/ltv", [.get]),
        Template("/v1/admin/exchange-rates", [.get, .put]),
        Template("/v1/admin/reports/subscriptions", [.get]),
        Template("/v1/admin/reports/content", [.get]),
        Template("/v1/admin/reports/experiments/{experiment_id}", [.get]),
        Template("/v1/content/{product_id}", [.get]),
        Template("/v1/content/{product_id}/claim", [.post]),
        Template("/v1/downloads/{app_id}/{product_id}/{version}", [.get, .head]),
        Template("/v1/admin/content/{product_id}", [.get]),
        Template("/v1/admin/content/{product_id}/uploads", [.post]),
        Template("/v1/admin/content/{product_id}/uploads/{upload_id}", [.get, .delete]),
        Template("/v1/admin/content/{product_id}/uploads/{upload_id}/files", [.put]),
        Template("/v1/admin/content/{product_id}/uploads/{upload_id}/publish", [.post]),
        Template("/operator/v1/apps", [.get, .post]),
        Template("/operator/v1/apps/{app_id}", [.get]),
        Template("/operator/v1/apps/{app_id}/keys", [.get, .post]),
        Template("/operator/v1/apps/{app_id}/keys/{key_id}", [.delete]),
        Template("/operator/v1/apps/{app_id}/customer-boundary", [.get, .put]),
        Template("/operator/v1/apps/{app_id}/customer-boundary/secrets", [.post]),
        Template("/operator/v1/apps/{app_id}/customer-boundary/secrets/{secret_id}", [.delete]),
        Template("/operator/v1/apps/{app_id}/customer-boundary/public-keys", [.post]),
        Template("/operator/v1/apps/{app_id}/customer-boundary/public-keys/{key_id}", [.delete]),
        // The console (issue 19): its page, its session API, the audit log, and support's customer look-ups.
        Template("/console", [.get]),
        Template("/console/api/session", [.get, .post, .put, .delete]),
        // Team sign-in (issue 40): console users, their invitations and second factors.
        Template("/console/api/session/totp", [.post, .put]),
        Template("/console/api/invitation", [.post]),
        Template("/v1/admin/users", [.get, .post]),
        Template("/v1/admin/users/{user_id}", [.put, .delete]),
        Template("/v1/admin/users/{user_id}/totp", [.delete]),
        Template("/v1/admin/audit-log", [.get]),
        Template("/v1/admin/customers", [.get]),
        // A customer's realized LTV on the customer page (issue 40).
        Template("/v1/admin/customers/{app_user_id}/ltv", [.get]),
        Template("/v1/admin/aliases/suspended", [.get]),
        Template("/v1/admin/verification-attempts", [.get]),
        Template("/v1/admin/aliases/suspended/confirm", [.post]),
        Template("/v1/customers/{app_user_id}/explain", [.get]),
        Template("/v1/customers/{app_user_id}/content/devices", [.get]),
        Template("/health/live", [.get]),
        Template("/health/ready", [.get]),
    ])
}
