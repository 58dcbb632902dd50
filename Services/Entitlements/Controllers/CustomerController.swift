import Hummingbird
import NIOCore
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/customers/{app_user_id}`: what a customer owns now, with an `ETag`.
struct CustomerController {
    let customers: any CustomerRepository
    /// How long the gateway may answer the same request from memory (zero: never).
    let gatewayCacheTTL: Duration

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":app_user_id", use: info)
    }

    @Sendable func info(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (caller, id) = try context.requireCallerAndCustomer()
        let document = try await customers.info(appID: caller.appID, appUserID: id)
        var headers: HTTPFields = [.eTag: document.etag, .cacheControl: CustomerInfoText.cacheControl]
        if gatewayCacheTTL > .zero {
            headers[Self.cacheTTLHeader] = String(gatewayCacheTTL.milliseconds)
        }
        if let match = request.headers[.ifNoneMatch], ETagMatch.matches(match, etag: document.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(document.json.utf8.count)
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: document.json)))
    }

    static let cacheTTLHeader = InternalHeader.cacheTTLMilliseconds.fieldName
}
