import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Shopkeeper {
    /// Downloads what the device lacks of the product's newest pack (resuming broken files with `Range`), checks
    /// every file's SHA-256, and answers where the files lie: under the storage directory's `content/<product>/`.
    /// Older versions are removed. When the server says the purchase was refunded or revoked (`403 revoked`), the
    /// pack is deleted from the device and ``ShopkeeperError/contentRevoked(productID:)`` thrown.
    public func content(productID: String) async throws(ShopkeeperError) -> ContentPack {
        let manifest: ContentManifest
        do throws(ShopkeeperError) {
            manifest = try await api.contentManifest(
                productID: productID, appUserID: state.appUserID, deviceID: state.deviceID,
                appVersion: configuration.appVersion)
        } catch {
            if error.code == "revoked" {
                try deleteContent(productID: productID)
                throw .contentRevoked(productID: productID)
            }
            throw error
        }
        return try await install(manifest)
    }

    /// Claims a product the catalog marks free and downloads its pack.
    public func claimFreeContent(productID: String) async throws(ShopkeeperError) -> ContentPack {
        let manifest = try await api.claimFreeContent(
            productID: productID, appUserID: state.appUserID, deviceID: state.deviceID,
            appVersion: configuration.appVersion)
        return try await install(manifest)
    }

    /// Asks Shopkeeper whether the purchases behind the downloaded packs still stand
    /// (`POST /v1/receipts/validate`) and deletes the packs whose answer says `content_action: delete`. Answers the
    /// products whose packs were deleted.
    public func checkDownloadedContent() async throws(ShopkeeperError) -> [String] {
        var deleted: [String] = []
        for productID in try contentIndex().packs.keys.sorted() {
            guard let proof = state.deliveredProofs[productID] else { continue }
            let result = try await api.validate(proof)
            if result.contentAction == "delete" {
                try deleteContent(productID: productID)
                deleted.append(productID)
            }
        }
        return deleted
    }

    /// Deletes every downloaded pack and downloads again each pack the customer is entitled to now (the
    /// store's "download my purchases again"): Shopkeeper forgets this device's downloads
    /// (`POST /v1/customers/{id}/content/reset`) and answers fresh manifests, then the device's packs are deleted
    /// and those manifests' files fetched and checked. Nothing is deleted when Shopkeeper cannot be asked. Answers
    /// the packs as downloaded again.
    public func resetContent() async throws(ShopkeeperError) -> [ContentPack] {
        let reset = try await api.resetContent(
            appUserID: state.appUserID, deviceID: state.deviceID, appVersion: configuration.appVersion)
        do {
            if FileManager.default.fileExists(atPath: contentRoot.path) {
                try FileManager.default.removeItem(at: contentRoot)
            }
        } catch {
            throw .storage("cannot delete the downloaded content: \(error)")
        }
        var packs: [ContentPack] = []
        for manifest in reset.manifests { packs.append(try await install(manifest)) }
        return packs
    }

    /// Removes a product's pack from the device.
    public func deleteContent(productID: String) throws(ShopkeeperError) {
        do {
            let folder = contentRoot.appendingPathComponent(productID, isDirectory: true)
            if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
        } catch {
            throw .storage("cannot delete the content of \(productID): \(error)")
        }
        var index = try contentIndex()
        index.packs[productID] = nil
        try indexFile.write(index)
    }

    // MARK: Files

    var contentRoot: URL { configuration.storageDirectory.appendingPathComponent("content", isDirectory: true) }
    var indexFile: JSONFile<ContentIndex> { JSONFile(url: contentRoot.appendingPathComponent("index.json")) }

    func contentIndex() throws(ShopkeeperError) -> ContentIndex { try indexFile.read() ?? ContentIndex() }

    /// Where a file of a version lies once complete.
    func finalURL(productID: String, version: String, path: String) -> URL {
        contentRoot.appendingPathComponent(productID, isDirectory: true)
            .appendingPathComponent(version, isDirectory: true).appendingPathComponent(path)
    }

    /// Where a file's bytes gather while it downloads (a resume continues from its length).
    func partialURL(productID: String, version: String, path: String) -> URL {
        contentRoot.appendingPathComponent(productID, isDirectory: true)
            .appendingPathComponent(".partial", isDirectory: true).appendingPathComponent(version, isDirectory: true)
            .appendingPathComponent(path + ".part")
    }

    private func install(_ manifest: ContentManifest) async throws(ShopkeeperError) -> ContentPack {
        var index = try contentIndex()
        var entry = index.packs[manifest.productID]
        if entry?.version != manifest.version { entry = ContentIndex.Entry(version: manifest.version, verified: [:]) }
        var files: [String: URL] = [:]
        var downloaded: Int64 = 0
        for file in manifest.files {
            let target = finalURL(productID: manifest.productID, version: manifest.version, path: file.path)
            if entry?.verified[file.path] == file.sha256, FileManager.default.fileExists(atPath: target.path) {
                files[file.path] = target
                continue
            }
            downloaded += try await download(file, of: manifest, to: target)
            entry?.verified[file.path] = file.sha256
            index.packs[manifest.productID] = entry
            try indexFile.write(index)
            files[file.path] = target
        }
        index.packs[manifest.productID] = entry
        try indexFile.write(index)
        removeOtherVersions(of: manifest)
        return ContentPack(
            productID: manifest.productID, version: manifest.version,
            directory: contentRoot.appendingPathComponent(manifest.productID, isDirectory: true)
                .appendingPathComponent(manifest.version, isDirectory: true),
            files: files, downloadedBytes: downloaded)
    }

    private func removeOtherVersions(of manifest: ContentManifest) {
        let folder = contentRoot.appendingPathComponent(manifest.productID, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name != manifest.version && name != ".partial" {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Fetches one file into its partial file from where it stopped, checks it, and moves it into place.
    /// A partial file that does not add up to the manifest's SHA-256 is fetched once more from the start.
    /// Answers the bytes fetched.
    private func download(_ file: ManifestFile, of manifest: ContentManifest, to target: URL)
        async throws(ShopkeeperError) -> Int64
    {
        guard let url = api.downloadURL(of: file) else { throw .transport("bad download URL \(file.url)") }
        let partial = partialURL(productID: manifest.productID, version: manifest.version, path: file.path)
        var fetched: Int64 = 0
        for round in 0..<2 {
            fetched += try await fill(
                partial, from: url, size: file.size, sha256: file.sha256, productID: manifest.productID)
            let digest: String
            do { digest = try SHA256Hasher.hex(ofFileAt: partial) } catch { throw .storage("\(error)") }
            if digest == file.sha256 {
                do {
                    try FileManager.default.createDirectory(
                        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    if FileManager.default.fileExists(atPath: target.path) {
                        try FileManager.default.removeItem(at: target)
                    }
                    try FileManager.default.moveItem(at: partial, to: target)
                } catch {
                    throw .storage("cannot move \(file.path) into place: \(error)")
                }
                return fetched
            }
            try? FileManager.default.removeItem(at: partial)
            if round == 1 { break }
        }
        throw .checksumMismatch(path: file.path)
    }

    /// Appends the missing bytes of the file to `partial`, one ranged request per piece.
    private func fill(_ partial: URL, from url: URL, size: Int64, sha256: String, productID: String)
        async throws(ShopkeeperError) -> Int64
    {
        let piece: Int64 = 4 << 20
        var fetched: Int64 = 0
        do {
            try FileManager.default.createDirectory(
                at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: partial.path) {
                _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
            }
        } catch {
            throw .storage("\(error)")
        }
        while true {
            let have = Self.fileSize(partial)
            if have > size {
                _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
                continue
            }
            if have == size { return fetched }
            var request = URLRequest(url: url)
            request.setValue("bytes=\(have)-\(min(have + piece, size) - 1)", forHTTPHeaderField: "Range")
            request.setValue("\"\(sha256)\"", forHTTPHeaderField: "If-Range")
            let answer = try await downloadExchange(request)
            switch answer.status {
            case 206:
                try Self.append(answer.body, to: partial)
                fetched += Int64(answer.body.count)
            case 200:
                // The whole file (the range was not honoured): start over with it.
                do { try answer.body.write(to: partial) } catch { throw .storage("\(error)") }
                fetched += Int64(answer.body.count)
            default:
                let problem = ShopkeeperAPI.problem(from: answer)
                if problem.code == "revoked" {
                    try deleteContent(productID: productID)
                    throw .contentRevoked(productID: productID)
                }
                throw .server(problem, retryAfter: RetryPolicy.retryAfterSeconds(answer.header("Retry-After")))
            }
        }
    }

    /// One download request (no API key: the URL's signature is the proof), retried like API calls.
    private func downloadExchange(_ request: URLRequest) async throws(ShopkeeperError) -> HTTPAnswer {
        var attempt = 0
        while true {
            attempt += 1
            let failure: ShopkeeperError
            do throws(ShopkeeperError) {
                let answer = try await api.exchange.send(request)
                guard RetryPolicy.isRetryable(status: answer.status) else { return answer }
                failure = .server(
                    ShopkeeperAPI.problem(from: answer),
                    retryAfter: RetryPolicy.retryAfterSeconds(answer.header("Retry-After")))
            } catch {
                failure = error
            }
            let policy = configuration.retryPolicy
            guard attempt < policy.maxAttempts else { throw failure }
            var retryAfter: Double? = nil
            if case .server(_, let seconds) = failure { retryAfter = seconds }
            try? await Task.sleep(
                nanoseconds: UInt64(policy.delay(afterAttempt: attempt, retryAfter: retryAfter) * 1_000_000_000))
        }
    }

    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func append(_ data: Data, to url: URL) throws(ShopkeeperError) {
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        } catch {
            throw .storage("cannot write \(url.lastPathComponent): \(error)")
        }
    }
}
