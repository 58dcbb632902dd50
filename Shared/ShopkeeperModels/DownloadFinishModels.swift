/// What the gateway reports when a download it sent from the content volume has ended (see `FileHandoff`):
/// `POST /internal/v1/downloads/{download_id}/finish` on the content service. Sending it again changes nothing.
package struct DownloadFinishReport: Codable, Sendable, Equatable {
    /// The bytes handed to the client's connection.
    package var bytesSent: Int64
    /// Whether every byte of the range was handed over.
    package var completed: Bool

    package init(bytesSent: Int64, completed: Bool) {
        self.bytesSent = bytesSent
        self.completed = completed
    }

    package enum CodingKeys: String, CodingKey {
        case bytesSent = "bytes_sent"
        case completed
    }

    /// The endpoint that takes the report of `downloadID`.
    package static func path(downloadID: Int64) -> String { "/internal/v1/downloads/\(downloadID)/finish" }
}

/// The content service's answer to a ``DownloadFinishReport``.
package struct DownloadFinishAnswer: Codable, Sendable, Equatable {
    package var downloadID: Int64
    /// `false` when the download had already been finished (a repeated report): nothing changed.
    package var recorded: Bool

    package init(downloadID: Int64, recorded: Bool) {
        self.downloadID = downloadID
        self.recorded = recorded
    }

    package enum CodingKeys: String, CodingKey {
        case downloadID = "download_id"
        case recorded
    }
}
