import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Content

/// Manifests and downloads over live HTTP on a real PostgreSQL, with files on disk.
@Suite struct ContentDeliveryTests {
    static let map = ContentFixtures.bytes(300_000, seed: 1)
    static let readme = Data("plant seeds in spring\n".utf8)

    @Test func ownerGetsManifestAndBytesMatchTheirSHA256() async throws {
        try await ContentHarness.run { harness in
            let published = try await harness.push(
                "garden", version: "1.0.0", files: ["levels/1/map.bin": Self.map, "readme.txt": Self.readme])
            #expect(published.files.map(\.path) == ["levels/1/map.bin", "readme.txt"])
            #expect(published.totalSize == Int64(Self.map.count + Self.readme.count))

            // Not bought yet: no manifest.
            #expect(try await harness.manifestResponse("garden").problemCode == "not_entitled")
            #expect(try await harness.apply([ContentFixtures.transaction(product: "garden")]).status == .ok)

            let manifest = try await harness.manifest("garden")
            #expect(manifest.version == "1.0.0")
            #expect(manifest.source == "purchase")
            #expect(manifest.expiresAt > Date().addingTimeInterval(800))
            for file in manifest.files {
                let original = file.path == "readme.txt" ? Self.readme : Self.map
                #expect(file.size == Int64(original.count))
                #expect(file.sha256 == ContentFixtures.sha256(original))
                #expect(!file.downloaded)
                let response = try await harness.download(file.url)
                #expect(response.status == .ok)
                #expect(ContentFixtures.sha256(Data(response.body.readableBytesView)) == file.sha256)
                #expect(response.headers[.contentLength] == String(original.count))
                #expect(response.headers[.eTag] == "\"\(file.sha256)\"")
                #expect(response.headers[.acceptRanges] == "bytes")

                let head = try await harness.download(file.url, method: .head)
                #expect(head.status == .ok)
                #expect(head.headers[.contentLength] == String(original.count))
                #expect(head.body.readableBytes == 0)
            }
            // Both files are now downloaded on this device, and only on this device.
            #expect(try await harness.manifest("garden").files.allSatisfy(\.downloaded))
            #expect(try await harness.manifest("garden", device: "device-2").files.allSatisfy { !$0.downloaded })
        }
    }

    @Test func tamperedExpiredAndOtherCustomersURLsAreRefused() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.map])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            try await harness.apply([ContentFixtures.transaction(product: "garden")], user: "user-2", device: "d-2")
            let url = try #require(try await harness.manifest("garden").files.first?.url)

            // One character of the signature changed.
            let last = url.last == "0" ? "1" : "0"
            #expect(try await harness.download(String(url.dropLast()) + last).problemCode == "invalid_signature")
            // Another customer (who owns the product too), another device, another file, a later expiry.
            for (from, to) in [
                ("user=user-1", "user=user-2"), ("device=device-1", "device=d-2"), ("file=a.bin", "file=b.bin"),
                ("expires=", "expires=9"),
            ] {
                let forged = url.replacingOccurrences(of: from, with: to)
                #expect(forged != url)
                #expect(try await harness.download(forged).problemCode == "invalid_signature", "\(from)")
            }
            #expect(
                try await harness.download(url.replacingOccurrences(of: "&signature=", with: "&x=")).problemCode
                    == "invalid_signature")

            // Correctly signed, but its time is up.
            let signature = DownloadSignature(secret: ContentSettings.developmentURLSecret)
            let expired = DownloadGrant(
                pack: PackVersion(appID: harness.appID, productID: "garden", version: "1"),
                path: try ContentPath("a.bin"), appUserID: "user-1", deviceID: "device-1",
                expires: Int64(Date().timeIntervalSince1970) - 1)
            #expect(try await harness.download(signature.url(for: expired)).problemCode == "url_expired")
            // Signed with another key.
            let foreign = DownloadSignature(secret: "another-secret-of-at-least-32-characters!")
            var later = expired
            later.expires += 3600
            #expect(try await harness.download(foreign.url(for: later)).problemCode == "invalid_signature")
            #expect(try await harness.download(signature.url(for: later)).status == .ok)
        }
    }

    @Test func rangesResumeAndConditionalRequests() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["map.bin": Self.map])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let file = try #require(try await harness.manifest("garden").files.first)
            let size = Self.map.count

            let first = try await harness.download(file.url, headers: [.range: "bytes=0-99999"])
            #expect(first.status == .partialContent)
            #expect(first.headers[.contentRange] == "bytes 0-99999/\(size)")
            #expect(first.headers[.contentLength] == "100000")
            let rest = try await harness.download(
                file.url, headers: [.range: "bytes=100000-", .ifRange: "\"\(file.sha256)\""])
            #expect(rest.status == .partialContent)
            #expect(rest.headers[.contentRange] == "bytes 100000-\(size - 1)/\(size)")
            let joined = Data(first.body.readableBytesView) + Data(rest.body.readableBytesView)
            #expect(joined == Self.map)

            let suffix = try await harness.download(file.url, headers: [.range: "bytes=-10"])
            #expect(Data(suffix.body.readableBytesView) == Self.map.suffix(10))
            let beyond = try await harness.download(file.url, headers: [.range: "bytes=\(size)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(size)")
            #expect(beyond.problemCode == "range_not_satisfiable")
            // Several ranges, or a resume against another version of the file: the whole file.
            #expect(try await harness.download(file.url, headers: [.range: "bytes=0-1,5-6"]).status == .ok)
            let stale = try await harness.download(file.url, headers: [.range: "bytes=5-", .ifRange: "\"other\""])
            #expect(stale.status == .ok)
            #expect(stale.body.readableBytes == size)
            let cached = try await harness.download(file.url, headers: [.ifNoneMatch: "\"\(file.sha256)\""])
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
        }
    }

    @Test func revokedPurchaseLosesManifestAndDownloads() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme])
            let bought = ContentFixtures.transaction(product: "garden")
            try await harness.apply([bought])
            let url = try #require(try await harness.manifest("garden").files.first?.url)
            #expect(try await harness.download(url).status == .ok)

            var refunded = bought
            refunded.revocationDate = Date()
            refunded.revocationReason = .other
            #expect(try await harness.apply([refunded], user: nil, device: nil, source: .validation).status == .ok)

            #expect(try await harness.manifestResponse("garden").problemCode == "revoked")
            let refused = try await harness.download(url)
            #expect(refused.status == .forbidden)
            #expect(refused.problemCode == "revoked")
        }
    }

    @Test func freeClaimIsCheckedAgainstTheCatalog() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("starter", version: "1", files: ["welcome.txt": Self.readme])
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme])
            func claim(_ product: String, user: String = "user-1") async throws -> any HTTPAnswer {
                let body = ContentClaimRequest(appUserID: user, deviceID: "device-1")
                return try await harness.send(
                    .post, "/v1/content/\(product)/claim", kind: .public, json: try TestJSON.encode(body))
            }
            #expect(try await harness.manifestResponse("starter").problemCode == "not_entitled")
            let claimed = try await claim("starter")
            #expect(claimed.status == .ok)
            let manifest = try claimed.decode(ContentManifest.self)
            #expect(manifest.source == "free_claim")
            #expect(try await harness.download(manifest.files[0].url).status == .ok)
            // Claiming again is harmless; the claim stays.
            #expect(try await claim("starter").status == .ok)
            #expect(try await harness.manifest("starter").source == "free_claim")

            // A product the catalog does not mark free cannot be claimed, whatever the client thinks.
            let paid = try await claim("garden")
            #expect(paid.status == .forbidden)
            #expect(paid.problemCode == "product_not_free")
            #expect(try await harness.manifestResponse("garden").problemCode == "not_entitled")
            #expect(try await claim("nope").problemCode == "product_not_found")
            // Once the catalog makes it paid, a new claim is refused.
            try await harness.importCatalog([
                ContentFixtures.product("starter", type: .nonConsumable),
                ContentFixtures.product("garden", type: .nonConsumable),
            ])
            #expect(try await claim("starter", user: "user-9").problemCode == "product_not_free")
        }
    }

    @Test func deviceLimitAppliesToContent() async throws {
        try await ContentHarness.run { harness in
            try await harness.setDeviceLimit(2)
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme])
            try await harness.apply([ContentFixtures.transaction(product: "garden")], device: "device-1")
            #expect(try await harness.manifestResponse("garden", device: "device-1").status == .ok)
            #expect(try await harness.manifestResponse("garden", device: "device-2").status == .ok)
            let third = try await harness.manifestResponse("garden", device: "device-3")
            #expect(third.status == .forbidden)
            #expect(third.problemCode == "device_limit_reached")
            // Devices already counted go on working.
            let url = try #require(try await harness.manifest("garden", device: "device-2").files.first?.url)
            #expect(try await harness.download(url).status == .ok)
            // A URL for a third device (signed, so only the limit stops it).
            let signature = DownloadSignature(secret: ContentSettings.developmentURLSecret)
            let grant = DownloadGrant(
                pack: PackVersion(appID: harness.appID, productID: "garden", version: "1"),
                path: try ContentPath("a.bin"), appUserID: "user-1", deviceID: "device-3",
                expires: Int64(Date().timeIntervalSince1970) + 60)
            #expect(try await harness.download(signature.url(for: grant)).problemCode == "device_limit_reached")
        }
    }

    @Test func subscriptionEntitlementGrantsContentOnlyWhileActive() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("pro_pack", version: "1", files: ["pro.bin": Self.readme])
            #expect(try await harness.manifestResponse("pro_pack").problemCode == "not_entitled")
            let subscription = ContentFixtures.transaction(
                product: "pro_monthly", expires: Date().addingTimeInterval(3600))
            #expect(try await harness.apply([subscription]).status == .ok)
            #expect(try await harness.manifest("pro_pack").files.count == 1)
            let lapsed = ContentFixtures.transaction(product: "pro_monthly", expires: Date().addingTimeInterval(-60))
            try await harness.apply([lapsed], user: "user-2", device: "d-2")
            #expect(try await harness.manifestResponse("pro_pack", user: "user-2", device: "d-2").status == .forbidden)
        }
    }

    @Test func newestVersionTheAppMayUse() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme])
            try await harness.push("garden", version: "2", files: ["a.bin": Self.map], minAppVersion: "2.0")
            try await harness.push("starter", version: "9", files: ["a.bin": Self.map], minAppVersion: "3.0")
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            #expect(try await harness.manifest("garden", appVersion: "1.5").version == "1")
            #expect(try await harness.manifest("garden", appVersion: "2.0").version == "2")
            #expect(try await harness.manifest("garden", appVersion: "10.1").version == "2")
            #expect(try await harness.manifest("garden").version == "1")
            #expect(try await harness.manifestResponse("garden", appVersion: "x").problemCode == "invalid_query")
            #expect(try await harness.manifestResponse("pro_pack").problemCode == "content_not_found")

            let listed = try await harness.send(.get, "/v1/admin/content/garden")
            #expect(try listed.decode(ContentVersionList.self).versions.map(\.version) == ["2", "1"])
            #expect(try await harness.send(.get, "/v1/admin/content/garden", kind: .public).status == .forbidden)
        }
    }

    @Test func resetForgetsTheDevicesDownloadsAndAnswersEverythingOwned() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme, "b.bin": Self.map])
            try await harness.push("starter", version: "1", files: ["s.bin": Self.readme])
            try await harness.push("pro_pack", version: "1", files: ["p.bin": Self.readme])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            for file in try await harness.manifest("garden").files {
                #expect(try await harness.download(file.url).status == .ok)
            }
            #expect(try await harness.manifest("garden").files.allSatisfy(\.downloaded))

            let body = try TestJSON.encode(ContentResetRequest(deviceID: "device-1"))
            let reset = try await harness.send(.post, "/v1/customers/user-1/content/reset", kind: .public, json: body)
            #expect(reset.status == .ok)
            let answer = try reset.decode(ContentResetResponse.self)
            #expect(answer.forgotten == 2)
            #expect(answer.manifests.map(\.productID) == ["garden"])
            #expect(answer.manifests[0].files.allSatisfy { !$0.downloaded })
            for file in answer.manifests[0].files {
                #expect(try await harness.download(file.url).status == .ok)
            }
        }
    }

    @Test func supportSeesEachDevicesDownloadsSinceItsLastReset() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1", files: ["a.bin": Self.readme, "b.bin": Self.map])
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            for device in ["phone", "tablet"] {
                for file in try await harness.manifest("garden", device: device).files {
                    #expect(try await harness.download(file.url).status == .ok)
                }
            }
            let reset = try await harness.send(
                .post, "/v1/customers/user-1/content/reset", kind: .public,
                json: try TestJSON.encode(ContentResetRequest(deviceID: "tablet")))
            #expect(reset.status == .ok)

            let listed = try await harness.send(.get, "/v1/customers/user-1/content/devices")
            #expect(listed.status == .ok)
            #expect(try listed.violations(.get, "/v1/customers/{app_user_id}/content/devices") == [])
            let devices = try listed.decode(ContentDeviceList.self).devices
            #expect(Set(devices.map(\.deviceID)) == ["phone", "tablet"])
            let phone = try #require(devices.first { $0.deviceID == "phone" })
            #expect(phone.downloads == 2)
            #expect(phone.completedFiles == 2)
            #expect(phone.bytesSent == Int64(Self.readme.count + Self.map.count))
            #expect(phone.packs == [ContentDevicePack(productID: "garden", version: "1")])
            #expect(phone.lastResetAt == nil)
            let tablet = try #require(devices.first { $0.deviceID == "tablet" })
            #expect(tablet.downloads == 0)
            #expect(tablet.packs.isEmpty)
            #expect(tablet.lastResetAt != nil)

            #expect(
                try await harness.send(.get, "/v1/customers/nobody/content/devices").decode(ContentDeviceList.self)
                    .devices.isEmpty)
            let publicKey = try await harness.send(.get, "/v1/customers/user-1/content/devices", kind: .public)
            #expect(publicKey.status == .forbidden)
        }
    }
}
