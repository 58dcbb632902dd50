import Foundation
import HTTPTypes
import ShopkeeperHTTP
import ShopkeeperModels

/// What a console user's session may call: the one table of roles (`docs/architecture.md`, "Your team", shows it).
///
/// Roles are ordered, each holding every right of the ones before it: viewer < support < developer < admin. A rule
/// names a method class and a path prefix (segments; `*` matches any one segment) and the least role that may call
/// it; the first rule that matches decides, and a route no rule names is the admin's. Sessions opened with an API key
/// or the operator key act as admin; a secret key sent as `Authorization: Bearer` is not held to roles. The operator
/// API is never a user session's.
enum ConsoleRoles {
    /// The methods a rule covers.
    enum Methods: String, Sendable {
        /// `GET` and `HEAD`: they change nothing.
        case read
        /// Every other method.
        case write
        case any

        func covers(_ method: HTTPRequest.Method) -> Bool {
            switch self {
            case .read: ConsoleSessions.isSafe(method)
            case .write: !ConsoleSessions.isSafe(method)
            case .any: true
            }
        }
    }

    /// One line of the table.
    struct Rule: Sendable {
        var methods: Methods
        var prefix: String
        var minimum: ConsoleRole
        /// The prefix's segments.
        var segments: [Substring] { prefix.split(separator: "/") }

        init(_ methods: Methods, _ prefix: String, _ minimum: ConsoleRole) {
            self.methods = methods
            self.prefix = prefix
            self.minimum = minimum
        }

        func matches(_ method: HTTPRequest.Method, _ pathSegments: [Substring]) -> Bool {
            let segments = self.segments
            guard methods.covers(method), pathSegments.count >= segments.count else { return false }
            return zip(segments, pathSegments).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    /// The table, first match wins.
    static let rules: [Rule] = [
        // viewer: charts and reports, and reading the catalog and offerings they name.
        .init(.read, "/v1/admin/reports", .viewer),
        .init(.read, "/v1/catalog", .viewer),
        .init(.read, "/v1/offerings", .viewer),
        .init(.read, "/v1/admin/products", .viewer),
        .init(.read, "/v1/admin/catalog", .viewer),
        .init(.read, "/v1/admin/offerings", .viewer),
        .init(.read, "/v1/admin/offering-rules", .viewer),
        .init(.read, "/v1/admin/experiments", .viewer),
        .init(.read, "/v1/admin/exchange-rates", .viewer),
        // support: customers, their grants and purchases, events and their replays.
        .init(.any, "/v1/customers", .support),
        .init(.any, "/v1/admin/customers", .support),
        .init(.any, "/v1/admin/events", .support),
        .init(.any, "/v1/admin/verification-attempts", .support),
        .init(.any, "/v1/admin/aliases", .support),
        .init(.any, "/v1/admin/purchases", .support),
        .init(.read, "/v1/admin/stores/*/orders", .support),
        .init(.read, "/v1/admin/stores/*/refunds", .support),
        .init(.write, "/v1/admin/stores/*/subscriptions", .support),
        .init(.any, "/v1/purchases", .support),
        .init(.any, "/v1/receipts", .support),
        .init(.any, "/v1/content", .support),
        // developer: the catalog, offerings and experiments, exchange rates, webhooks (the entitlements settings and
        // endpoints), content, store notifications.
        .init(.any, "/v1/admin/products", .developer),
        .init(.any, "/v1/admin/catalog", .developer),
        .init(.any, "/v1/admin/offerings", .developer),
        .init(.any, "/v1/admin/offering-rules", .developer),
        .init(.any, "/v1/admin/experiments", .developer),
        .init(.any, "/v1/admin/exchange-rates", .developer),
        .init(.any, "/v1/admin/content", .developer),
        .init(.any, "/v1/admin/entitlements", .developer),
        .init(.any, "/v1/admin/webhook-endpoints", .developer),
        .init(.any, "/v1/admin/stores/*/notification-recovery", .developer),
        .init(.read, "/v1/admin/stores", .developer),
        // admin: keys, users, store credentials, the customer boundary, answer signing, the audit log, and any
        // route not named above.
        .init(.any, "/v1/admin/keys", .admin),
        .init(.any, "/v1/admin/users", .admin),
        .init(.any, "/v1/admin/stores", .admin),
    ]

    /// The least role that may call `method` on `path`.
    static func minimum(_ method: HTTPRequest.Method, path: String) -> ConsoleRole {
        let segments = path.split(separator: "/")
        // A dot segment, spelled plainly or percent-encoded, could name another route once something normalizes it:
        // only an admin's.
        guard !segments.contains(where: { ($0.removingPercentEncoding ?? ".").allSatisfy { $0 == "." } }) else {
            return .admin
        }
        return rules.first { $0.matches(method, segments) }?.minimum ?? .admin
    }

    /// Refuses `role` when the table asks more for `method` on `path`.
    static func authorize(_ role: ConsoleRole, _ method: HTTPRequest.Method, path: String) throws(ConsoleRoleError) {
        let minimum = minimum(method, path: path)
        guard role >= minimum else { throw ConsoleRoleError(role: role, minimum: minimum) }
    }
}

/// A console user's role does not reach the route (`403 role_insufficient`).
struct ConsoleRoleError: ProblemError, Equatable {
    var role: ConsoleRole
    var minimum: ConsoleRole

    var status: HTTPResponse.Status { .forbidden }
    var code: String { "role_insufficient" }
    var detail: String {
        "This needs the \(minimum.rawValue) role or above; this console user is \(role.rawValue)."
    }
}
