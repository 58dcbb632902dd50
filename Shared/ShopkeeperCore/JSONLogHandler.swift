import Foundation
import Logging

/// A `LogHandler` that writes one JSON object per line to standard error.
///
/// Fields: `ts` (RFC 3339, UTC, milliseconds: ``LogTimestamp``), `level`, `service`, `msg`, then every metadata key
/// (the request id among them, and `trace_id`/`span_id` when tracing is on and a span is current).
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    package var logLevel: Logger.Level
    private let label: String

    package init(label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        FileHandle.standardError.write(Data(line(for: event, timestamp: LogTimestamp.now()).utf8))
    }

    /// The line `event` is written as, newline included.
    package func line(for event: LogEvent, timestamp: String) -> String {
        var merged = self.metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        var line = "{\"ts\":\"\(timestamp)\",\"level\":\"\(event.level.rawValue)\""
        line += ",\"service\":" + JSONString.quoted(label)
        line += ",\"msg\":" + JSONString.quoted(event.message.description)
        for key in merged.keys.sorted() {
            guard let value = merged[key] else { continue }
            line += "," + JSONString.quoted(key) + ":" + JSONString.quoted(value.description)
        }
        line += "}\n"
        return line
    }
}

extension LoggingSystem {
    /// Installs ``JSONLogHandler`` with the level from `LOG_LEVEL` (default `info`) and an optional metadata provider
    /// (the trace and span ids when tracing is on); call once, from `main`.
    package static func bootstrapJSON(
        environment: EnvironmentReader, metadataProvider: Logger.MetadataProvider? = nil
    ) throws(ConfigurationError) -> Logger.Level {
        let level: Logger.Level = try environment.choice("LOG_LEVEL", default: .info)
        LoggingSystem.bootstrap(
            { label, provider in JSONLogHandler(label: label, level: level, metadataProvider: provider) },
            metadataProvider: metadataProvider)
        return level
    }
}
