import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Content

/// The content service's real answers, success and errors, fit `docs/openapi.yaml` (undocumented fields fail).
@Suite struct ContentOpenAPITests {
    @Test func responsesFitTheDocumentedSchemas() async throws {
        let document = try OpenAPIDocument.load()
        try await ContentHarness.run { harness in
            var problems: [String] = []
            func check(_ method: HTTPRequest.Method, _ template: String, _ response: any HTTPAnswer) {
                problems += document.violations(
                    method: method.rawValue, path: template, status: response.status.code,
                    contentType: response.headers[.contentType], body: Data(response.body.readableBytesView))
            }
            let uploads = "/v1/admin/content/{product_id}/uploads"
            let created = try await harness.createUpload("garden", version: "1", minAppVersion: "1.0")
            check(.post, uploads, created)
            check(.post, uploads, try await harness.createUpload("nope", version: "1"))
            check(.post, uploads, try await harness.createUpload("garden", version: "../x"))
            let upload = try created.decode(ContentUpload.self)
            let files = "\(uploads)/{upload_id}/files"
            check(
                .put, files,
                try await harness.putFile("garden", upload: upload.uploadID, path: "a.bin", bytes: Data("abc".utf8)))
            check(
                .put, files, try await harness.putFile("garden", upload: upload.uploadID, path: "../a", bytes: Data()))
            check(.put, files, try await harness.putFile("garden", upload: "upl_nope", path: "a", bytes: Data()))
            check(
                .get, "\(uploads)/{upload_id}",
                try await harness.send(.get, "/v1/admin/content/garden/uploads/\(upload.uploadID)"))
            check(
                .post, "\(uploads)/{upload_id}/publish", try await harness.publish("garden", upload: upload.uploadID))
            check(
                .post, "\(uploads)/{upload_id}/publish", try await harness.publish("garden", upload: upload.uploadID))
            let other = try await harness.createUpload("garden", version: "2").decode(ContentUpload.self)
            check(
                .delete, "\(uploads)/{upload_id}",
                try await harness.send(.delete, "/v1/admin/content/garden/uploads/\(other.uploadID)"))
            // An aborted upload is gone: reading it, aborting it again or adding to it is 404.
            let aborted = "/v1/admin/content/garden/uploads/\(other.uploadID)"
            for (method, template, response) in [
                (HTTPRequest.Method.get, "\(uploads)/{upload_id}", try await harness.send(.get, aborted)),
                (.delete, "\(uploads)/{upload_id}", try await harness.send(.delete, aborted)),
                (
                    .put, files,
                    try await harness.putFile("garden", upload: other.uploadID, path: "b", bytes: Data("b".utf8))
                ),
            ] {
                #expect(response.status == .notFound, "\(method) \(template)")
                check(method, template, response)
            }
            check(.get, "/v1/admin/content/{product_id}", try await harness.send(.get, "/v1/admin/content/garden"))
            check(
                .get, "/v1/admin/content/{product_id}",
                try await harness.send(.get, "/v1/admin/content/garden", kind: .public))

            let manifest = "/v1/content/{product_id}"
            check(.get, manifest, try await harness.manifestResponse("garden"))
            check(.get, manifest, try await harness.manifestResponse("garden", appVersion: "x"))
            check(.get, manifest, try await harness.manifestResponse("starter"))
            try await harness.apply([ContentFixtures.transaction(product: "garden")])
            let owned = try await harness.manifestResponse("garden", appVersion: "1.2")
            check(.get, manifest, owned)
            check(.get, manifest, try await harness.manifestResponse("garden", appVersion: "0.9"))
            let url = try owned.decode(ContentManifest.self).files[0].url

            let downloads = "/v1/downloads/{app_id}/{product_id}/{version}"
            check(.get, downloads, try await harness.download(url))
            check(.get, downloads, try await harness.download(url, headers: [.range: "bytes=1-"]))
            check(.get, downloads, try await harness.download(url, headers: [.range: "bytes=9-"]))
            check(.get, downloads, try await harness.download(url + "0"))
            check(.head, downloads, try await harness.download(url, method: .head))

            let claim = "/v1/content/{product_id}/claim"
            let claimBody = try TestJSON.encode(ContentClaimRequest(appUserID: "user-1", deviceID: "device-1"))
            check(
                .post, claim, try await harness.send(.post, "/v1/content/garden/claim", kind: .public, json: claimBody))
            check(
                .post, claim,
                try await harness.send(.post, "/v1/content/garden/claim", kind: .public, json: Data(#"{}"#.utf8)))
            let reset = "/v1/customers/{app_user_id}/content/reset"
            check(
                .post, reset,
                try await harness.send(
                    .post, "/v1/customers/user-1/content/reset", kind: .public,
                    json: try TestJSON.encode(ContentResetRequest(deviceID: "device-1"))))
            #expect(problems == [])
        }
    }
}
