import Foundation
import Testing

@testable import ShopkeeperKit

/// Content packs against the real local stack: a download broken off is resumed, checked by SHA-256, and the pack
/// is deleted once the purchase is refunded.
@Suite(.serialized, .enabled(if: Stack.available)) struct ContentStackTests {
    @Test func aBrokenDownloadResumesIsVerifiedAndIsDeletedAfterARefund() async throws {
        let stack = try Stack.require()
        let product = try await stack.createProduct(type: .nonConsumable)
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
        let small = Data("a seed pack\n".utf8)
        try await stack.publishContent(productID: product.productID, files: ["maps/big.bin": big, "readme.txt": small])

        let device = try stack.device()
        let kit = device.shopkeeper
        guard case .delivered(let response) = try await kit.purchase(productID: product.productID) else {
            Issue.record("not delivered")
            return
        }
        let transactionID = try #require(response.transactions.first?.transactionID)

        // The download of the big file broke off after its first 100 000 bytes.
        let partial = await kit.partialURL(productID: product.productID, version: "1.0.0", path: "maps/big.bin")
        try FileManager.default.createDirectory(
            at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try big.prefix(100_000).write(to: partial)

        let pack = try await kit.content(productID: product.productID)
        #expect(pack.version == "1.0.0")
        #expect(pack.downloadedBytes == Int64(big.count - 100_000 + small.count), "only the missing bytes were fetched")
        #expect(try Data(contentsOf: try #require(pack.files["maps/big.bin"])) == big)
        #expect(try Data(contentsOf: try #require(pack.files["readme.txt"])) == small)
        #expect(!FileManager.default.fileExists(atPath: partial.path))

        // Asked again, nothing is fetched.
        #expect(try await kit.content(productID: product.productID).downloadedBytes == 0)

        // The customer gets a refund from the store; the app checks its downloaded packs and deletes this one.
        try await stack.sandbox("POST", "sandbox/apple/transactions/\(transactionID)/refund")
        #expect(try await kit.checkDownloadedContent() == [product.productID])
        #expect(!FileManager.default.fileExists(atPath: pack.directory.path))
        await #expect(throws: ShopkeeperError.contentRevoked(productID: product.productID)) {
            try await kit.content(productID: product.productID)
        }
    }

    @Test func aCorruptPartialFileIsFetchedAgain() async throws {
        let stack = try Stack.require()
        let product = try await stack.createProduct(type: .nonConsumable)
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await stack.publishContent(productID: product.productID, files: ["level.bin": bytes])
        let kit = try stack.device().shopkeeper
        guard case .delivered = try await kit.purchase(productID: product.productID) else {
            Issue.record("not delivered")
            return
        }
        let partial = await kit.partialURL(productID: product.productID, version: "1.0.0", path: "level.bin")
        try FileManager.default.createDirectory(
            at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0xFF, count: 20_000).write(to: partial)
        let pack = try await kit.content(productID: product.productID)
        #expect(try Data(contentsOf: try #require(pack.files["level.bin"])) == bytes)
        #expect(pack.downloadedBytes == Int64(bytes.count - 20_000 + bytes.count), "the rest, then all of it again")
    }
}
