import Foundation
import Logging

/// A `LogHandler` that writes one JSON object per line to standard error.
///
/// Fields: `ts` (ISO 8601, UTC), `level`, `service`, `msg`, then every metadata key (the request id among them).
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    private let label: String

    package init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = self.metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        var line = "{\"ts\":\"\(Date().formatted(.iso8601))\",\"level\":\"\(event.level.rawValue)\""
        line += ",\"service\":" + JSONString.quoted(label)
        line += ",\"msg\":" + JSONString.quoted(event.message.description)
        for key in merged.keys.sorted() {
            guard let value = merged[key] else { continue }
            line += "," + JSONString.quoted(key) + ":" + JSONString.quoted(value.description)
        }
        line += "}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

extension LoggingSystem {
    /// Installs ``JSONLogHandler`` with the level from `LOG_LEVEL` (default `info`); call once, from `main`.
    package static func bootstrapJSON(environment: EnvironmentReader) throws(ConfigurationError) -> Logger.Level {
        let level: Logger.Level = try environment.choice("LOG_LEVEL", default: .info)
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        return level
    }
}
