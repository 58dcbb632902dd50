import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import ShopkeeperModels
import ShopkeeperReports
import ShopkeeperTestSupport
import Testing

@testable import Content

/// `GET /v1/admin/reports/content`: file downloads per pack version and day, their devices and re-downloads, from the
/// download log the real downloads wrote (and entries written through the repository for a closed day).
@Suite("Content report")
struct ContentReportTests {
    static let a = ContentFixtures.bytes(1000, seed: 1)
    static let b = ContentFixtures.bytes(2000, seed: 2)

    static func name(_ daysAgo: Int) -> String {
        ReportDay(containing: Date().addingTimeInterval(-Double(daysAgo) * 86_400)).description
    }

    func report(_ harness: ContentHarness, _ query: String, kind: APIKeyKind = .secret, accept: String? = nil)
        async throws -> any HTTPAnswer
    {
        var headers: HTTPFields = [:]
        if let accept { headers[.accept] = accept }
        return try await harness.send(.get, "/v1/admin/reports/content?\(query)", kind: kind, headers: headers)
    }

    func document(_ harness: ContentHarness, _ query: String) async throws -> ReportDocument {
        let answer = try await report(harness, query)
        try #require(answer.status == .ok, "report: \(answer.text)")
        return try ReportDocument(answer.body.readableBytesView)
    }

    /// Writes a whole-file download `daysAgo` days ago through the repository, as a download the service sent.
    func logDownload(
        _ harness: ContentHarness, daysAgo: Int, version: String, path: String, size: Int64, user: String,
        device: String
    ) async throws {
        try await TestDatabase.withClient(TestDatabase.settings()) { client in
            let repository = ContentPostgresRepository(client: client, logger: Logger(label: "test"))
            let id = try await repository.startDownload(
                DownloadRecord(
                    pack: PackVersion(appID: harness.appID, productID: "garden", version: version), path: path,
                    appUserID: user, deviceID: device, range: 0...(size - 1), fileSize: size, requestID: nil,
                    startedAt: Date().addingTimeInterval(-Double(daysAgo) * 86_400)))
            #expect(try await repository.finishDownload(id, bytesSent: size, completed: true))
        }
    }

    @Test("Downloads, re-downloads, devices and bytes per day and version; CSV holds the same rows")
    func downloadsPerVersionAndDay() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.a, "b.bin": Self.b])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            try await harness.apply([ContentFixtures.transaction(product: "garden")], user: "user-2", device: "d-3")
            // user-1 downloads both files on device-1, file a again there and on device-2 (two re-downloads);
            // user-2 fetches b in two ranges: the second sends its last byte, one file download.
            let first = try await harness.manifest("garden")
            for file in first.files { #expect(try await harness.download(file.url).status == .ok) }
            let a = try #require(first.files.first { $0.path == "a.bin" })
            #expect(try await harness.download(a.url).status == .ok)
            let second = try await harness.manifest("garden", device: "device-2")
            let a2 = try #require(second.files.first { $0.path == "a.bin" })
            #expect(try await harness.download(a2.url).status == .ok)
            let other = try await harness.manifest("garden", user: "user-2", device: "d-3")
            let b = try #require(other.files.first { $0.path == "b.bin" })
            #expect(try await harness.download(b.url, headers: [.range: "bytes=0-99"]).status == .partialContent)
            #expect(try await harness.download(b.url, headers: [.range: "bytes=100-"]).status == .partialContent)
            // Two days ago (the daily summary's): user-3 downloaded version 1's a, and a version 2.
            try await logDownload(
                harness, daysAgo: 2, version: "1", path: "a.bin", size: 1000, user: "u3", device: "d4")
            try await logDownload(
                harness, daysAgo: 2, version: "2", path: "a.bin", size: 1500, user: "u3", device: "d4")

            let query = "from=\(Self.name(2))&to=\(Self.name(0))"
            var report = try await document(harness, query)
            // A download's log entry is finished as its last bytes leave: wait for the last one.
            let deadline = ContinuousClock.now + .seconds(10)
            while report.total()?["downloads"] != 7, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                report = try await document(harness, query)
            }
            #expect(report.groupBy == ["day", "version"])
            #expect(
                report.columns == ["day", "product_id", "version", "downloads", "redownloads", "devices", "bytes_sent"])
            let rows = report.rows.map { row in report.columns.map { row[$0] ?? "missing" } }
            let expected: [[ReportDocument.Cell]] = [
                [.text(Self.name(2)), "garden", "1", 1, 0, 1, 1000],
                [.text(Self.name(2)), "garden", "2", 1, 0, 1, 1500],
                [.text(Self.name(0)), "garden", "1", 5, 2, 3, 7000],
            ]
            #expect(rows == expected)
            #expect(report.total() == ["downloads": 7, "redownloads": 2, "bytes_sent": 9500, "devices": 4])

            let perVersion = try await document(harness, query + "&group_by=version")
            #expect(
                perVersion.rows.map { [$0["version"], $0["downloads"], $0["devices"]] }
                    == [["1", 6, 4], ["2", 1, 1]])

            let csv = try await self.report(harness, query + "&format=csv")
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(ReportDocument.parseCSV(String(buffer: csv.body)) == report.csvLines)
            #expect(try await self.report(harness, query, kind: .public).status == .forbidden)
            #expect(try await self.report(harness, query + "&environment=production").status == .badRequest)
        }
    }
}
