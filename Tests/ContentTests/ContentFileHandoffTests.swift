import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import ShopkeeperCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Downloads the gateway sends itself from the content volume (`SHOPKEEPER_CONTENT_DIR` on the gateway): the same
/// bytes, ranges and answers as when the content service streams them, every download logged with what was sent,
/// and a volume the gateway cannot read falls back to streaming.
@Suite struct ContentFileHandoffTests {
    /// Runs a gateway in front of the harness's services; `contentDirectory` is its `SHOPKEEPER_CONTENT_DIR`.
    static func withGateway(
        _ harness: ContentHarness, contentDirectory: String?,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var values = [
            "SHOPKEEPER_CATALOG_URL": "http://127.0.0.1:\(harness.catalog.port ?? 0)",
            "SHOPKEEPER_ENTITLEMENTS_URL": "http://127.0.0.1:\(harness.entitlements.port ?? 0)",
            "SHOPKEEPER_VERIFIER_URL": "http://127.0.0.1:9",
            "SHOPKEEPER_CONTENT_URL": "http://127.0.0.1:\(harness.content.port ?? 0)",
        ]
        values["SHOPKEEPER_CONTENT_DIR"] = contentDirectory
        let settings = try GatewaySettings.read(from: TestEnvironment.reader(values))
        #expect(settings.contentDirectory == contentDirectory)
        try await Gateway.buildApplication(settings: settings).testLive(body)
    }

    /// One logged download.
    struct LoggedDownload: Equatable {
        var rangeStart: Int64
        var bytesSent: Int64
        var completed: Bool
    }

    /// The app's download log, oldest first, once every entry is finished (the gateway reports in the background).
    static func finishedLog(appID: String) async throws -> [LoggedDownload] {
        try await TestDatabase.withClient { client in
            for _ in 0..<100 {
                var rows: [LoggedDownload] = []
                var unfinished = 0
                let query: PostgresQuery = """
                    SELECT range_start, bytes_sent, completed, finished_at IS NULL FROM content.downloads
                    WHERE app_id = \(appID) ORDER BY download_id
                    """
                for try await (start, sent, completed, open) in try await client.query(query).decode(
                    (Int64, Int64, Bool, Bool).self)
                {
                    rows.append(LoggedDownload(rangeStart: start, bytesSent: sent, completed: completed))
                    if open { unfinished += 1 }
                }
                if unfinished == 0 { return rows }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("downloads still unfinished in the log after 5 s")
            return []
        }
    }

    @Test func theGatewaySendsTheFileFromTheVolumeAndReportsIt() async throws {
        try await ContentHarness.run { harness in
            let bytes = ContentFixtures.bytes(9 << 20 + 123, seed: 5)
            try await harness.push("garden", version: "1", files: ["levels/big.bin": bytes])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            let etag = "\"\(ContentFixtures.sha256(bytes))\""
            try await Self.withGateway(harness, contentDirectory: harness.storageDirectory) { gateway in
                let whole = try await gateway.execute(uri: url, method: .get)
                #expect(whole.status == .ok)
                #expect(Data(whole.body.readableBytesView) == bytes)
                #expect(whole.headers[.contentLength] == String(bytes.count))
                #expect(whole.headers[.eTag] == etag)
                #expect(whole.headers[.acceptRanges] == "bytes")
                #expect(whole.headers[.contentDisposition] == "attachment; filename=\"big.bin\"")
                #expect(!whole.headers.contains { $0.name.canonicalName.hasPrefix(InternalHeader.prefix) })

                // A range past the first part of the file, resumed under the same validator.
                let start = 5 << 20 + 7
                let part = try await gateway.execute(
                    uri: url, method: .get, headers: [.range: "bytes=\(start)-", .ifRange: etag])
                #expect(part.status == .partialContent)
                #expect(part.headers[.contentRange] == "bytes \(start)-\(bytes.count - 1)/\(bytes.count)")
                #expect(Data(part.body.readableBytesView) == bytes.suffix(from: start))

                // Answers without a body stay the service's.
                let head = try await gateway.execute(uri: url, method: .head)
                #expect(head.status == .ok && head.headers[.contentLength] == String(bytes.count))
                #expect(head.body.readableBytes == 0)
                #expect(
                    try await gateway.execute(uri: url, method: .get, headers: [.ifNoneMatch: etag]).status
                        == .notModified)
                #expect(
                    try await gateway.execute(uri: url, method: .get, headers: [.range: "bytes=999999999-"]).status
                        == .rangeNotSatisfiable)
            }
            // Each GET that sent bytes is logged with all of them (HEAD, 304 and 416 send none and log nothing).
            #expect(
                try await Self.finishedLog(appID: harness.appID) == [
                    LoggedDownload(rangeStart: 0, bytesSent: Int64(bytes.count), completed: true),
                    LoggedDownload(
                        rangeStart: Int64(5 << 20 + 7), bytesSent: Int64(bytes.count - (5 << 20 + 7)),
                        completed: true),
                ])
            #expect(try await harness.manifest("garden").files[0].downloaded)
        }
    }

    @Test func pipelinedDownloadsLeaveInOrderOnOneConnection() async throws {
        try await ContentHarness.run { harness in
            // Text, so that the raw client can read the bodies; longer than one 4 MiB part.
            let text = String(repeating: "the quick brown fox jumps over the lazy dog\n", count: 150_000)
            try await harness.push("garden", version: "1", files: ["notes.txt": Data(text.utf8)])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            try await Self.withGateway(harness, contentDirectory: harness.storageDirectory) { gateway in
                func get(_ range: String?) -> String {
                    "GET \(url) HTTP/1.1\r\nHost: gw\r\n" + (range.map { "Range: bytes=\($0)\r\n" } ?? "") + "\r\n"
                }
                let bodies = try await RawHTTP.exchange(
                    port: gateway.port ?? 0, get(nil) + get("4-8") + get(nil) + get("-4"), responses: 4)
                #expect(bodies.count == 4)
                #expect(bodies.first == text)
                #expect(bodies.dropFirst().first == "quick")
                #expect(bodies.dropFirst(2).first == text)
                #expect(bodies.dropFirst(3).first == "dog\n")
            }
        }
    }

    @Test func aVolumeTheGatewayCannotReadFallsBackToStreaming() async throws {
        let elsewhere = FileManager.default.temporaryDirectory
            .appendingPathComponent("sk-not-the-volume-\(RandomToken.base62(length: 8))").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try await ContentHarness.run { harness in
            let bytes = ContentFixtures.bytes(300_000, seed: 6)
            try await harness.push("garden", version: "1", files: ["a.bin": bytes])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            try await Self.withGateway(harness, contentDirectory: elsewhere) { gateway in
                let download = try await gateway.execute(uri: url, method: .get)
                #expect(download.status == .ok)
                #expect(Data(download.body.readableBytesView) == bytes)
            }
            // The hand-off that could not be sent is logged as sending nothing; the service streamed the file.
            #expect(
                try await Self.finishedLog(appID: harness.appID) == [
                    LoggedDownload(rangeStart: 0, bytesSent: 0, completed: false),
                    LoggedDownload(rangeStart: 0, bytesSent: Int64(bytes.count), completed: true),
                ])
        }
    }

    @Test func aBrokenDownloadIsLoggedAsNotCompleted() async throws {
        try await ContentHarness.run { harness in
            let version = try await ContentStreamingTests.pushLarge(harness)
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            try await Self.withGateway(harness, contentDirectory: harness.storageDirectory) { gateway in
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                var received = 0
                do {
                    let response = try await client.execute(
                        HTTPClientRequest(url: "http://127.0.0.1:\(gateway.port ?? 0)\(url)"), timeout: .seconds(60))
                    #expect(response.status == .ok)
                    for try await part in response.body {
                        received += part.readableBytes
                        if received >= 2 << 20 { break }
                    }
                }
                try await client.shutdown()
                #expect(received < ContentStreamingTests.size)
            }
            let log = try await Self.finishedLog(appID: harness.appID)
            #expect(log.count == 1)
            #expect(log.first?.completed == false)
            #expect((log.first?.bytesSent ?? .max) < version.files[0].size)
        }
    }

    @Test func reportsAreIdempotentAndChecked() async throws {
        try await ContentHarness.run { harness in
            let bytes = ContentFixtures.bytes(1000, seed: 8)
            try await harness.push("garden", version: "1", files: ["a.bin": bytes])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            // Offered a hand-off, the service answers with the head alone and the file's place on the volume.
            let handoff = try await harness.download(
                url, headers: [InternalHeader.fileDelivery.fieldName: FileHandoff.deliveryValue])
            #expect(handoff.status == .ok)
            #expect(handoff.body.readableBytes == 0 && handoff.headers[.contentLength] == "0")
            let described = try #require(FileHandoff { handoff.headers[$0.fieldName] })
            #expect(described.range == 0...999 && described.fileSize == 1000)
            let onDisk = try Data(contentsOf: URL(fileURLWithPath: harness.storageDirectory + "/" + described.path))
            #expect(onDisk == bytes)

            func report(_ id: Int64, _ body: String) async throws -> any HTTPAnswer {
                let path = DownloadFinishReport.path(downloadID: id)
                let json = Data(body.utf8)
                return try await harness.content.execute(
                    uri: path, method: .post, headers: .signed(.post, path, appID: nil, body: json),
                    body: ByteBuffer(bytes: json))
            }
            let id = described.downloadID
            #expect(
                try await report(id, #"{"bytes_sent":1001,"completed":true}"#).problemCode
                    == "invalid_download_report")
            #expect(
                try await report(id, #"{"bytes_sent":-1,"completed":false}"#).problemCode
                    == "invalid_download_report")
            #expect(
                try await report(id + 1_000_000, #"{"bytes_sent":1,"completed":false}"#).problemCode
                    == "download_not_found")
            #expect(try await report(id, #"{"completed":true}"#).problemCode == "validation_failed")

            // The same report eight times at once finishes the download once.
            let answers = try await withThrowingTaskGroup(of: DownloadFinishAnswer.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await report(id, #"{"bytes_sent":1000,"completed":true}"#).decode(
                            DownloadFinishAnswer.self)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.filter(\.recorded).count == 1)
            #expect(answers.allSatisfy { $0.downloadID == id })
            // A later, different report changes nothing either.
            #expect(
                try await report(id, #"{"bytes_sent":10,"completed":false}"#).decode(DownloadFinishAnswer.self)
                    == DownloadFinishAnswer(downloadID: id, recorded: false))
            #expect(
                try await Self.finishedLog(appID: harness.appID) == [
                    LoggedDownload(rangeStart: 0, bytesSent: 1000, completed: true)
                ])
        }
    }
}
