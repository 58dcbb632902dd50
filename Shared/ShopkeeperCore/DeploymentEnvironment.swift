/// Where a process runs: decides whether local conveniences (default secrets, sandbox roots) are allowed.
package enum DeploymentEnvironment: String, CaseIterable, Sendable {
    /// A developer's machine or a test run: safe local defaults apply.
    case development
    /// Real money: every secret must be configured explicitly.
    case production

    /// Reads `SHOPKEEPER_ENV` (default `development`).
    package static func read(from environment: EnvironmentReader) throws(ConfigurationError) -> Self {
        try environment.choice("SHOPKEEPER_ENV", default: .development)
    }
}

extension EnvironmentReader {
    /// A secret that has a well-known local default in development and must be set in production.
    package func secret(
        _ name: String,
        minimumLength: Int = 32,
        developmentDefault: String,
        environment: DeploymentEnvironment
    ) throws(ConfigurationError) -> String {
        try secret(
            name,
            minimumLength: minimumLength,
            localDefault: environment == .development ? developmentDefault : nil
        )
    }
}
