import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Content

/// Uploads: streamed to disk, staged, published whole; path tricks, limits, a full disk and races refused cleanly.
@Suite struct ContentUploadTests {
    @Test func pathTricksAreRefusedAndNothingIsKept() async throws {
        try await ContentHarness.run { harness in
            let created = try await harness.createUpload("garden", version: "1")
            let upload = try created.decode(ContentUpload.self)
            for path in [
                "../escape.bin", "a/../../escape.bin", "/etc/passwd", "a/./b", ".hidden", "a//b", "a/", "a\\b",
                "", "a/b c", "%2e%2e/x", String(repeating: "a/", count: 20) + "x",
            ] {
                let response = try await harness.putFile(
                    "garden", upload: upload.uploadID, path: path, bytes: Data("x".utf8))
                #expect(response.status == .unprocessableContent, "\(path)")
                #expect(response.problemCode == "invalid_path", "\(path)")
            }
            // A file where a directory is needed, and the reverse: the first of each two is stored, the second refused.
            let puts: [(path: String, conflicts: Bool)] = [("a", false), ("a/b", true), ("c/d", false), ("c", true)]
            for (index, put) in puts.enumerated() {
                let response = try await harness.putFile(
                    "garden", upload: upload.uploadID, path: put.path, bytes: Data("\(index + 1)".utf8))
                if put.conflicts {
                    #expect(response.problemCode == "path_conflict", "\(put.path)")
                } else {
                    #expect(response.status == .ok, "\(put.path)")
                }
            }
            let shown = try await harness.send(.get, "/v1/admin/content/garden/uploads/\(upload.uploadID)")
            #expect(try shown.decode(ContentUpload.self).files.map(\.path) == ["a", "c/d"])
            // Nothing was written outside the storage directory.
            #expect(!FileManager.default.fileExists(atPath: harness.storageDirectory + "/staging/escape.bin"))
            #expect(!FileManager.default.fileExists(atPath: harness.storageDirectory + "/../escape.bin"))
        }
    }

    @Test func limitsChecksumsAndAFullDiskLeaveNothingPublished() async throws {
        try await ContentHarness.run(environment: ["SHOPKEEPER_CONTENT_MAX_FILE_BYTES": "1000"]) { harness in
            let upload = try await harness.createUpload("garden", version: "1").decode(ContentUpload.self)
            let big = try await harness.putFile(
                "garden", upload: upload.uploadID, path: "big.bin", bytes: ContentFixtures.bytes(1001))
            #expect(big.status == .contentTooLarge)
            #expect(big.problemCode == "file_too_large")
            let small = ContentFixtures.bytes(1000)
            let wrong = try await harness.putFile(
                "garden", upload: upload.uploadID, path: "small.bin", bytes: small,
                sha256: String(repeating: "0", count: 64))
            #expect(wrong.problemCode == "checksum_mismatch")
            #expect(try await harness.publish("garden", upload: upload.uploadID).problemCode == "empty_upload")
            let right = try await harness.putFile(
                "garden", upload: upload.uploadID, path: "small.bin", bytes: small,
                sha256: ContentFixtures.sha256(small))
            #expect(right.status == .ok)
            #expect(try right.decode(ContentFile.self).sha256 == ContentFixtures.sha256(small))
            // Nothing of the refused files remains staged: only the accepted one.
            let staged = try FileManager.default.subpathsOfDirectory(
                atPath: harness.storageDirectory + "/staging/\(upload.uploadID)/files")
            #expect(staged == ["small.bin"])
            #expect(try await harness.publish("garden", upload: upload.uploadID).status == .created)
            #expect(try await harness.publish("garden", upload: upload.uploadID).problemCode == "upload_not_open")
            #expect(try await harness.createUpload("garden", version: "1").problemCode == "version_exists")
            #expect(try await harness.createUpload("nope", version: "1").problemCode == "product_not_found")
            #expect(try await harness.createUpload("garden", version: "../1").problemCode == "invalid_version")
        }
        // The volume has less room than the configured reserve: a clear error, nothing kept or published.
        try await ContentHarness.run(environment: ["SHOPKEEPER_CONTENT_RESERVE_BYTES": String(1 << 44)]) { harness in
            let upload = try await harness.createUpload("garden", version: "1").decode(ContentUpload.self)
            let full = try await harness.putFile(
                "garden", upload: upload.uploadID, path: "a.bin", bytes: ContentFixtures.bytes(10_000))
            #expect(full.status.code == 507)
            #expect(full.problemCode == "storage_full")
            #expect(try await harness.publish("garden", upload: upload.uploadID).problemCode == "empty_upload")
            let versions = try await harness.send(.get, "/v1/admin/content/garden")
            #expect(try versions.decode(ContentVersionList.self).versions.isEmpty)
        }
    }

    @Test func twoUploadsOfOneVersionAtOnceLeaveOneCompleteVersion() async throws {
        try await ContentHarness.run { harness in
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let paths = (0..<6).map { "part/\($0).bin" }
            let statuses = try await withThrowingTaskGroup(of: (UInt8, Int).self) { group in
                for seed in [UInt8(1), 2, 3, 4] {
                    group.addTask {
                        let created = try await harness.createUpload("garden", version: "7", atOnce: true)
                        guard created.status == .created else { return (seed, Int(created.status.code)) }
                        let upload = try created.decode(ContentUpload.self)
                        for (index, path) in paths.enumerated() {
                            let bytes = ContentFixtures.bytes(50_000 + index, seed: seed)
                            _ = try await harness.putFile(
                                "garden", upload: upload.uploadID, path: path, bytes: bytes, atOnce: true)
                        }
                        let published = try await harness.publish("garden", upload: upload.uploadID, atOnce: true)
                        return (seed, Int(published.status.code))
                    }
                }
                var statuses: [UInt8: Int] = [:]
                for try await (seed, status) in group { statuses[seed] = status }
                return statuses
            }
            let winners = statuses.filter { $0.value == 201 }.map(\.key)
            #expect(winners.count == 1, "\(statuses)")
            #expect(statuses.values.allSatisfy { $0 == 201 || $0 == 409 }, "\(statuses)")
            let winner = try #require(winners.first)
            // Every file of the version is the winner's, on disk as in the manifest.
            let manifest = try await harness.manifest("garden")
            #expect(manifest.files.map(\.path) == paths.sorted())
            for file in manifest.files {
                let index = try #require(paths.firstIndex(of: file.path))
                let expected = ContentFixtures.bytes(50_000 + index, seed: winner)
                #expect(file.sha256 == ContentFixtures.sha256(expected))
                let downloaded = try await harness.download(file.url)
                #expect(Data(downloaded.body.readableBytesView) == expected)
            }
        }
    }
}
