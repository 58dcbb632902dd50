import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Content

/// Large files over real sockets: a broken download resumes with `Range`, and concurrent downloads stream from disk
/// without holding files in memory.
@Suite(.serialized) struct ContentStreamingTests {
    static let size = 48 << 20

    /// The bytes of a large file, written straight into an upload as a stream of chunks.
    static func pushLarge(_ harness: ContentHarness, product: String = "garden") async throws -> ContentVersion {
        let upload = try await harness.createUpload(product, version: "big").decode(ContentUpload.self)
        let uri = "/v1/admin/content/\(product)/uploads/\(upload.uploadID)/files?path=big.bin"
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(harness.content.port ?? 0)\(uri)")
        request.method = .PUT
        for field in HTTPFields.signed(.put, uri, appID: harness.appID, kind: .secret) {
            request.headers.add(name: field.name.rawName, value: field.value)
        }
        let chunks = RepeatedChunks(
            chunk: ByteBuffer(bytes: ContentFixtures.bytes(1 << 20, seed: 9)), count: size >> 20)
        request.body = .stream(chunks, length: .known(Int64(size)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        #expect(response.status == .ok)
        _ = try await response.body.collect(upTo: 1 << 16)
        let published = try await harness.publish(product, upload: upload.uploadID)
        try #require(published.status == .created)
        return try published.decode(ContentVersion.self)
    }

    @Test func brokenDownloadResumesWithRange() async throws {
        try await ContentHarness.run { harness in
            let version = try await Self.pushLarge(harness)
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let file = try #require(try await harness.manifest("garden").files.first)
            #expect(file.sha256 == version.files[0].sha256)
            let url = "http://127.0.0.1:\(harness.content.port ?? 0)\(file.url)"

            // Read about 5 MiB, then drop the connection.
            var received = Data()
            do {
                var request = HTTPClientRequest(url: url)
                for field in HTTPFields.signed(.get, file.url, appID: nil) {
                    request.headers.add(name: field.name.rawName, value: field.value)
                }
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                let response = try await client.execute(request, timeout: .seconds(60))
                for try await part in response.body {
                    received.append(contentsOf: part.readableBytesView)
                    if received.count >= 5 << 20 { break }
                }
                try await client.shutdown()
            }
            #expect(received.count < Self.size)

            // Resume from where it broke, for the same file only.
            var resume = HTTPClientRequest(url: url)
            for field in HTTPFields.signed(.get, file.url, appID: nil) {
                resume.headers.add(name: field.name.rawName, value: field.value)
            }
            resume.headers.add(name: "range", value: "bytes=\(received.count)-")
            resume.headers.add(name: "if-range", value: "\"\(file.sha256)\"")
            let response = try await HTTPClient.shared.execute(resume, timeout: .seconds(60))
            #expect(response.status == .partialContent)
            var hasher = SHA256()
            hasher.update(data: received)
            for try await part in response.body { hasher.update(data: Data(part.readableBytesView)) }
            #expect(Data(hasher.finalize()).hexString == file.sha256)

            // The log has the broken download (not completed) and the resumed one (to the end).
            try await Task.sleep(for: .milliseconds(300))
            let manifest = try await harness.manifest("garden")
            #expect(manifest.files[0].downloaded)
        }
    }

    @Test func concurrentDownloadsKeepMemoryFlat() async throws {
        try await ContentHarness.run { harness in
            let version = try await Self.pushLarge(harness)
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let file = try #require(try await harness.manifest("garden").files.first)
            let url = "http://127.0.0.1:\(harness.content.port ?? 0)\(file.url)"
            let before = Self.residentBytes()
            let peak = PeakMeter()
            let sampler = Task {
                while !Task.isCancelled {
                    peak.observe(Self.residentBytes())
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            let hashes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var request = HTTPClientRequest(url: url)
                        for field in HTTPFields.signed(.get, file.url, appID: nil) {
                            request.headers.add(name: field.name.rawName, value: field.value)
                        }
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                        var hasher = SHA256()
                        for try await part in response.body {
                            part.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                        }
                        return Data(hasher.finalize()).hexString
                    }
                }
                var hashes: [String] = []
                for try await hash in group { hashes.append(hash) }
                return hashes
            }
            sampler.cancel()
            #expect(hashes == Array(repeating: version.files[0].sha256, count: 8))
            // 8 x 48 MiB went through this process at once: holding the files would grow it by 384 MiB or more. The
            // bound leaves room for the other tests this process runs meanwhile (the release benchmark measures the
            // service alone: Benchmarks/content/run).
            let growth = peak.value - before
            #expect(growth < 96 << 20, "resident memory grew by \(growth >> 20) MiB")
        }
    }

    /// This process's resident set size, from `/proc/self/statm` (0 where there is none).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// The largest value seen, from any thread.
final class PeakMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    var value: Int { lock.withLock { peak } }
    func observe(_ value: Int) { lock.withLock { peak = max(peak, value) } }
}

/// The same chunk `count` times, produced as it is read.
struct RepeatedChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let chunk: ByteBuffer
    let count: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunk: ByteBuffer
        var left: Int
        mutating func next() async -> ByteBuffer? {
            guard left > 0 else { return nil }
            left -= 1
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: chunk, left: count) }
}
