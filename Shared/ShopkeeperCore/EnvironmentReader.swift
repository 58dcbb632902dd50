import Foundation

/// Reads typed, validated settings from environment variables.
///
/// Every getter throws a ``ConfigurationError`` naming the variable when its value is unusable, so a
/// service refuses to start with a clear message instead of running with a surprise.
package struct EnvironmentReader: Sendable {
    private let values: [String: String]

    /// Reads from the given values; defaults to the process environment.
    package init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The raw value, or `nil` when the variable is unset or empty.
    package func raw(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// A string value, or the default when unset.
    package func string(_ name: String, default defaultValue: String) -> String {
        raw(name) ?? defaultValue
    }

    /// A string value that must be set.
    package func requiredString(_ name: String) throws(ConfigurationError) -> String {
        guard let value = raw(name) else { throw ConfigurationError(variable: name, reason: "must be set") }
        return value
    }

    /// An integer within `range`, or the default when unset.
    package func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError)
        -> Int
    {
        guard let text = raw(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                reason: "must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'"
            )
        }
        return value
    }

    /// A decimal number within `range`, or the default when unset.
    package func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>)
        throws(ConfigurationError) -> Double
    {
        guard let text = raw(name) else { return defaultValue }
        guard let value = Double(text), range.contains(value) else {
            throw ConfigurationError(
                variable: name,
                reason: "must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text)'"
            )
        }
        return value
    }

    /// A boolean (`true`/`false`/`1`/`0`/`yes`/`no`), or the default when unset.
    package func bool(_ name: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let text = raw(name)?.lowercased() else { return defaultValue }
        switch text {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "must be true or false, got '\(text)'")
        }
    }

    /// A duration in seconds (decimals allowed), or the default when unset.
    package func seconds(_ name: String, default defaultValue: Duration, in range: ClosedRange<Double>)
        throws(ConfigurationError) -> Duration
    {
        guard raw(name) != nil else { return defaultValue }
        let value = try double(name, default: 0, in: range)
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    /// An `http` or `https` URL, or the default when unset.
    package func httpURL(_ name: String, default defaultValue: String) throws(ConfigurationError) -> URL {
        try Self.parseHTTPURL(raw(name) ?? defaultValue, variable: name)
    }

    /// A value that must be one of the cases of `T`, or the default when unset.
    package func choice<T: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: T)
        throws(ConfigurationError) -> T
    where T.RawValue == String {
        guard let text = raw(name) else { return defaultValue }
        guard let value = T(rawValue: text.lowercased()) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(variable: name, reason: "must be one of \(allowed), got '\(text)'")
        }
        return value
    }

    /// A secret of at least `minimumLength` characters; when unset, `localDefault` is used if given.
    package func secret(_ name: String, minimumLength: Int = 32, localDefault: String?) throws(ConfigurationError)
        -> String
    {
        guard let value = raw(name) ?? localDefault else {
            throw ConfigurationError(variable: name, reason: "must be set (at least \(minimumLength) characters)")
        }
        guard value.count >= minimumLength else {
            throw ConfigurationError(variable: name, reason: "must be at least \(minimumLength) characters long")
        }
        return value
    }

    /// Parses and checks an `http` or `https` URL.
    package static func parseHTTPURL(_ text: String, variable: String) throws(ConfigurationError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ConfigurationError(variable: variable, reason: "must be an http(s) URL, got '\(text)'")
        }
        return url
    }
}
