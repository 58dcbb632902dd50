import Foundation
import Hummingbird
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// Pack uploads (secret key), under `/v1/admin/content/{product_id}`:
///
/// - `GET` the published versions;
/// - `POST .../uploads` starts an upload of a version; `GET .../uploads/{upload_id}` shows it;
/// - `PUT .../uploads/{upload_id}/files?path=&sha256=` streams one file to disk (never whole in memory);
/// - `POST .../uploads/{upload_id}/publish` makes the version visible, whole and at once;
/// - `DELETE .../uploads/{upload_id}` aborts it.
struct ContentAdminController {
    let repository: any ContentRepository
    let storage: any ContentStorage
    let limits: ContentLimits
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":product_id", use: list)
            .post(":product_id/uploads", use: create)
            .get(":product_id/uploads/:upload_id", use: show)
            .delete(":product_id/uploads/:upload_id", use: abort)
            .put(":product_id/uploads/:upload_id/files", use: putFile)
            .post(":product_id/uploads/:upload_id/publish", use: publish)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireSecretCaller()
        let product = try context.parameters.require("product_id")
        guard ContentName.isValid(product) else { throw ContentError.productNotFound(product) }
        let versions = try await repository.versions(appID: caller.appID, productID: product)
        return try JSONBody.response(ContentVersionList(productID: product, versions: versions))
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireSecretCaller()
        let product = try context.parameters.require("product_id")
        let body = try await JSONBody.decode(CreateContentUploadRequest.self, from: request, limit: maxBodyBytes)
        guard ContentName.isValid(body.version, maximum: 64) else { throw ContentError.invalidVersion(body.version) }
        guard ContentName.isValid(product),
            try await repository.catalogProduct(appID: caller.appID, productID: product) != nil
        else { throw ContentError.productNotFound(product) }
        let upload = try await repository.createUpload(appID: caller.appID, productID: product, request: body)
        return try JSONBody.response(upload, status: .created)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, product, uploadID) = try Self.upload(context)
        return try JSONBody.response(
            try await repository.upload(appID: caller.appID, productID: product, uploadID: uploadID))
    }

    @Sendable func abort(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, product, uploadID) = try Self.upload(context)
        let upload = try await repository.abort(appID: caller.appID, productID: product, uploadID: uploadID)
        await storage.discard(upload: uploadID)
        return try JSONBody.response(upload)
    }

    @Sendable func putFile(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, product, uploadID) = try Self.upload(context)
        let query = request.uri.queryParameters
        let path = try ContentPath(query.get("path") ?? "")
        let declaredHash = query.get("sha256")?.lowercased()
        if let declaredHash, declaredHash.utf8.count != 64 || Data(hexString: declaredHash) == nil {
            throw RequestError.invalidQuery([FieldProblem(pointer: "?sha256", detail: "must be 64 hex digits")])
        }
        let upload = try await repository.upload(appID: caller.appID, productID: product, uploadID: uploadID)
        guard upload.state == "open" else { throw ContentError.uploadNotOpen(id: uploadID, state: upload.state) }
        let declaredLength = request.headers[.contentLength].flatMap(Int64.init)
        let stored = try await storage.store(
            request.body, upload: uploadID, path: path, limit: limits.maxFileBytes, declaredLength: declaredLength,
            expectedSHA256: declaredHash)
        try await repository.addFile(stored, appID: caller.appID, productID: product, uploadID: uploadID)
        return try JSONBody.response(stored)
    }

    @Sendable func publish(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, product, uploadID) = try Self.upload(context)
        let upload = try await repository.beginPublish(
            appID: caller.appID, productID: product, uploadID: uploadID, limits: limits)
        let pack = PackVersion(appID: caller.appID, productID: product, version: upload.version)
        // A publish that failed after the rename is finished by publishing again: the files are in place already.
        if try await !storage.contains(pack) {
            do {
                try await storage.publish(upload: uploadID, as: pack)
            } catch {
                await repository.logging(to: context.logger).abandonPublish(upload, appID: caller.appID)
                throw error
            }
        }
        let version = try await repository.finishPublish(upload, appID: caller.appID)
        await storage.discard(upload: uploadID)
        context.logger.info(
            "content version published",
            metadata: ["product_id": "\(product)", "version": "\(upload.version)", "files": "\(version.files.count)"])
        return try JSONBody.response(version, status: .created)
    }

    private static func upload(_ context: ServiceRequestContext) throws -> (InternalCaller, String, String) {
        let caller = try context.requireSecretCaller()
        let product = try context.parameters.require("product_id")
        let uploadID = try context.parameters.require("upload_id")
        guard ContentName.isValid(product), ContentName.isValid(uploadID) else {
            throw ContentError.uploadNotFound(uploadID)
        }
        return (caller, product, uploadID)
    }
}
