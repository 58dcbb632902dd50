import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET` and `HEAD /v1/downloads/{app_id}/{product_id}/{version}?file=&user=&device=&expires=&signature=`: the bytes
/// of one pack file, for whoever holds a URL from a manifest (no API key: the URL's signature is the proof).
///
/// The signature is checked first (constant time), then the expiry, then that the customer still owns the product
/// (a refund or revocation withdraws it at once) and that the device fits the purchase's device limit. The answer
/// has `Content-Length`, `ETag` (the file's SHA-256), `Accept-Ranges: bytes`; one `Range` gives `206` (or `416`),
/// `If-Range` resumes only the same bytes, and `If-None-Match` gives `304`. Every `GET` is logged when it starts, and
/// finished with the bytes sent and whether it ran to its end.
///
/// When the gateway can read the storage volume itself, it asks for a ``FileHandoff``: the answer is then the head
/// alone, the gateway sends the bytes with `sendfile(2)` and reports the outcome to ``finish(_:context:)``.
struct DownloadController {
    let delivery: ContentDelivery
    let repository: any ContentRepository
    let storage: any ContentStorage
    let signature: DownloadSignature
    let chunkBytes: Int

    /// The controller's routes, added with `router.addRoutes(controller.endpoints)`.
    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get("/v1/downloads/:app_id/:product_id/:version", use: download)
        routes.head("/v1/downloads/:app_id/:product_id/:version", use: download)
        routes.post("/internal/v1/downloads/:download_id/finish", use: finish)
        return routes
    }

    @Sendable func download(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let grant = try grant(from: request, context: context)
        guard signature.isValid(request.uri.queryParameters.get("signature") ?? "", for: grant) else {
            throw ContentError.invalidSignature
        }
        guard grant.expires >= Int64(Date().timeIntervalSince1970) else { throw ContentError.urlExpired }
        guard let file = try await repository.file(grant.pack, path: grant.path.value) else {
            throw ContentError.fileNotFound(grant.path.value)
        }
        _ = try await delivery.requireAccess(
            appID: grant.pack.appID, appUserID: grant.appUserID, deviceID: grant.deviceID,
            product: grant.pack.productID, requestID: context.requestID)

        let etag = "\"\(file.sha256)\""
        var headers: HTTPFields = [
            .eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, no-cache",
            .contentDisposition: "attachment; filename=\"\(grant.path.fileName)\"",
        ]
        if let ifNoneMatch = request.headers[.ifNoneMatch], ETagMatch.matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        var range = ByteRangeRequest.parse(request.headers[.range], size: file.size)
        // A resume must continue the same bytes: a range under another validator sends the whole file.
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .whole }
        let bytes: ClosedRange<Int64>?
        var status = HTTPResponse.Status.ok
        switch range {
        case .whole: bytes = file.size > 0 ? 0...(file.size - 1) : nil
        case .partial(let part):
            bytes = part
            status = .partialContent
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(file.size)"
        case .unsatisfiable: throw ContentError.rangeNotSatisfiable(size: file.size)
        }
        let length = bytes.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        headers[.contentType] = "application/octet-stream"
        headers[.contentLength] = String(length)
        guard request.method == .get else { return Response(status: status, headers: headers) }

        let downloadID = try await repository.startDownload(
            DownloadRecord(
                pack: grant.pack, path: grant.path.value, appUserID: grant.appUserID, deviceID: grant.deviceID,
                range: bytes, fileSize: file.size, requestID: context.requestID, startedAt: Date()))
        if let bytes, request.headers[InternalHeader.fileDelivery.fieldName] == FileHandoff.deliveryValue,
            let shared = storage.sharedPath(of: grant.pack, path: grant.path)
        {
            // The gateway sends the bytes from the shared volume and reports back (`finish`).
            let handoff = FileHandoff(path: shared, range: bytes, fileSize: file.size, downloadID: downloadID)
            for (name, value) in handoff.headers { headers.append(HTTPField(name: name.fieldName, value: value)) }
            headers[.contentLength] = "0"
            return Response(status: status, headers: headers)
        }
        let (storage, repository, chunkBytes) = (self.storage, self.repository, self.chunkBytes)
        let logger = context.logger
        let body = ResponseBody(contentLength: Int(length)) { writer in
            var sent: Int64 = 0
            var failure: (any Error)?
            if let bytes {
                do {
                    try await storage.read(grant.pack, path: grant.path, range: bytes, chunkBytes: chunkBytes) {
                        chunk in
                        sent += Int64(chunk.readableBytes)
                        try await writer.write(chunk)
                    }
                } catch {
                    failure = error
                }
            }
            do {
                _ = try await repository.finishDownload(
                    downloadID, bytesSent: sent, completed: failure == nil && sent == length)
            } catch {
                logger.error("download log write failed", metadata: ["error": "\(error)"])
            }
            if let failure { throw failure }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// `POST /internal/v1/downloads/{download_id}/finish`: the gateway's report of a download it sent from the
    /// shared volume (``FileHandoff``). A repeated report changes nothing.
    @Sendable func finish(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let id = context.parameters.get("download_id").flatMap({ Int64($0) }) else {
            throw ContentError.invalidDownloadReport("the download id must be a number")
        }
        let report = try await JSONBody.decode(DownloadFinishReport.self, from: request, limit: 4096)
        guard report.bytesSent >= 0 else { throw ContentError.invalidDownloadReport("bytes_sent is negative") }
        let recorded = try await repository.finishDownload(
            id, bytesSent: report.bytesSent, completed: report.completed)
        return try JSONBody.response(DownloadFinishAnswer(downloadID: id, recorded: recorded))
    }

    /// The grant a download URL claims (not yet checked).
    private func grant(from request: Request, context: ServiceRequestContext) throws -> DownloadGrant {
        let query = request.uri.queryParameters
        let app = try context.parameters.require("app_id")
        let product = try context.parameters.require("product_id")
        let version = try context.parameters.require("version")
        guard ContentName.isValid(app), ContentName.isValid(product), ContentName.isValid(version, maximum: 64),
            let file = query.get("file"), let path = try? ContentPath(file),
            let user = query.get("user"), !user.isEmpty, let device = query.get("device"), !device.isEmpty,
            let expires = query.get("expires").flatMap(Int64.init)
        else { throw ContentError.invalidSignature }
        return DownloadGrant(
            pack: PackVersion(appID: app, productID: product, version: version), path: path, appUserID: user,
            deviceID: device, expires: expires)
    }
}
