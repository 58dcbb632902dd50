import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopkeeperCore
import ShopkeeperModels

/// Checks the signature every call to a service must carry (from the gateway or a sibling service) and puts the
/// signed identity in the context.
///
/// Health and metrics paths are open (probes and scrapers carry no secret). Paths under `/internal/` must also sign
/// the body's SHA-256; public routes forwarded by the gateway may carry ``InternalSignature/unsignedPayload``
/// because the gateway streams their bodies.
package struct InternalAuthMiddleware: RouterMiddleware {
    package typealias Context = ServiceRequestContext

    private let signature: InternalSignature
    private let internalBodyLimit: Int

    package init(signature: InternalSignature, internalBodyLimit: Int = 1 << 20) {
        self.signature = signature
        self.internalBodyLimit = internalBodyLimit
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/health/") || path == "/metrics" {
            return try await next(request, context)
        }
        var request = request
        var context = context
        let headers = request.headers
        guard let declaredHash = headers[InternalHeader.contentSHA256.fieldName] else {
            throw AuthError.invalidSignature("missing \(InternalHeader.contentSHA256)")
        }
        if path.hasPrefix("/internal/") {
            guard declaredHash != InternalSignature.unsignedPayload else {
                throw AuthError.invalidSignature("internal endpoints require a signed body hash")
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: internalBodyLimit)
            } catch is NIOTooManyBytesError {
                throw RequestError.bodyTooLarge(limit: internalBodyLimit)
            }
            let actual = InternalSignature.bodyHash(body.readableBytesView)
            guard actual == declaredHash.lowercased() else {
                throw AuthError.invalidSignature("the body does not match its signed hash")
            }
            request.body = .init(buffer: body)
        }
        let caller = try Self.caller(from: headers)
        do throws(InternalSignatureError) {
            try signature.verify(
                method: request.method.rawValue,
                pathAndQuery: request.uri.description,
                timestamp: headers[InternalHeader.timestamp.fieldName],
                caller: caller,
                contentSHA256: declaredHash,
                signature: headers[InternalHeader.signature.fieldName]
            )
        } catch {
            throw AuthError.invalidSignature(Self.reason(error))
        }
        context.caller = caller
        return try await next(request, context)
    }

    private static func caller(from headers: HTTPFields) throws(AuthError) -> InternalCaller? {
        guard let appID = headers[InternalHeader.appID.fieldName] else { return nil }
        guard let kindText = headers[InternalHeader.keyKind.fieldName], let kind = APIKeyKind(rawValue: kindText) else {
            throw AuthError.invalidSignature("missing or unknown \(InternalHeader.keyKind)")
        }
        var customer: String?
        if let encoded = headers[InternalHeader.customer.fieldName] {
            guard let decoded = InternalCaller.decodeCustomer(encoded) else {
                throw AuthError.invalidSignature("malformed \(InternalHeader.customer)")
            }
            customer = decoded
        }
        return InternalCaller(appID: appID, keyKind: kind, customer: customer)
    }

    private static func reason(_ error: InternalSignatureError) -> String {
        switch error {
        case .missing: "no signature"
        case .malformed: "malformed signature headers"
        case .expired: "the timestamp is outside the allowed window"
        case .mismatch: "the signature does not match"
        }
    }
}

extension String {
    /// This header name as an `HTTPField.Name`; only for the constant names of ``InternalHeader``.
    package var fieldName: HTTPField.Name {
        guard let name = HTTPField.Name(self) else { preconditionFailure("'\(self)' is not a valid header name") }
        return name
    }
}
