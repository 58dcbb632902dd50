/// A configuration value that is missing or invalid, found while a process starts.
///
/// The message always names the environment variable, so an operator can fix it without reading code.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// The environment variable at fault.
    package let variable: String
    /// What is wrong with it, and what would be accepted.
    package let reason: String

    package init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    package var description: String { "invalid configuration: \(variable) \(reason)" }
}
