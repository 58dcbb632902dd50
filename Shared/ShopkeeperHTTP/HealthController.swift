import Hummingbird

/// One thing a service needs before it can take traffic (the database, migrations, an upstream).
package struct ReadinessCheck: Sendable {
    /// Short name shown in the `/health/ready` body.
    package var name: String
    /// Returns normally when ready; throws to say why not.
    package var check: @Sendable () async throws -> Void

    package init(name: String, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.check = check
    }
}

/// The body of `/health/ready`.
package struct ReadinessReport: Codable, Sendable {
    package var status: String
    /// Each check's result: `ok` or a short reason.
    package var checks: [String: String]
}

/// `/health/live` (the process answers) and `/health/ready` (every ``ReadinessCheck`` passes; 503 otherwise).
package struct HealthController<Context: RequestContext>: Sendable {
    private let checks: [ReadinessCheck]

    package init(checks: [ReadinessCheck]) {
        self.checks = checks
    }

    package var endpoints: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get("live") { _, _ in
            try JSONBody.response(ReadinessReport(status: "live", checks: [:]))
        }
        routes.get("ready") { _, _ in
            try await self.ready()
        }
        return routes
    }

    private func ready() async throws -> Response {
        let results = await withTaskGroup(of: (String, String).self) { group in
            for check in checks {
                group.addTask {
                    do {
                        try await check.check()
                        return (check.name, "ok")
                    } catch {
                        return (check.name, "failing: \(Self.describe(error))")
                    }
                }
            }
            var results: [String: String] = [:]
            for await (name, result) in group { results[name] = result }
            return results
        }
        let ready = results.values.allSatisfy { $0 == "ok" }
        return try JSONBody.response(
            ReadinessReport(status: ready ? "ready" : "not_ready", checks: results),
            status: ready ? .ok : .serviceUnavailable,
            headers: [.cacheControl: "no-store"]
        )
    }

    private static func describe(_ error: any Error) -> String {
        if let problem = error as? any ProblemError { return problem.code }
        if let reason = error as? ReadinessFailure { return reason.reason }
        return String(describing: type(of: error))
    }
}

/// A readiness check's own explanation of why it fails.
package struct ReadinessFailure: Error {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
}
