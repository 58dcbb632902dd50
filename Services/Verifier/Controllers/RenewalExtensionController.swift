import Foundation
import HTTPTypes
import Hummingbird
import ShopkeeperHTTP

/// `POST /v1/admin/stores/apple/subscriptions/{original_transaction_id}/extend` (secret key, `Idempotency-Key`
/// required) `{"extend_by_days": 1-90, "reason_code": 0-3}`: Apple's *Extend a Subscription Renewal Date*, to make up
/// for an outage or a cancelled event. At most once per key (``RenewalExtensionService``); the subscription is read
/// again at once, so the customer's expiry moves in Shopkeeper without waiting for Apple's `RENEWAL_EXTENDED`.
struct RenewalExtensionController {
    let service: RenewalExtensionService
    let maxBodyBytes: Int

    /// The body.
    struct ExtendRequest: Codable {
        var extendByDays: Int
        var reasonCode: Int

        enum CodingKeys: String, CodingKey {
            case extendByDays = "extend_by_days"
            case reasonCode = "reason_code"
        }
    }

    /// The answer: the extension as Apple made it.
    struct Extension: Encodable {
        var originalTransactionID: String
        var environment: String
        var extendByDays: Int
        var reasonCode: Int
        var requestIdentifier: UUID
        /// The subscription's new expiry.
        var effectiveDate: Date?
        var webOrderLineItemID: String?
        var extendedAt: Date

        init(_ record: RenewalExtension) {
            originalTransactionID = record.originalTransactionID
            environment = record.environment.rawValue
            extendByDays = record.extendByDays
            reasonCode = record.reasonCode
            requestIdentifier = record.requestIdentifier
            effectiveDate = record.effectiveDate
            webOrderLineItemID = record.webOrderLineItemID
            extendedAt = record.createdAt
        }

        enum CodingKeys: String, CodingKey {
            case environment
            case originalTransactionID = "original_transaction_id"
            case extendByDays = "extend_by_days"
            case reasonCode = "reason_code"
            case requestIdentifier = "request_identifier"
            case effectiveDate = "effective_date"
            case webOrderLineItemID = "web_order_line_item_id"
            case extendedAt = "extended_at"
        }
    }

    /// Under `:store` (see ``OrderLookupController/endpoints``).
    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post(":store/subscriptions/:original_transaction_id/extend", use: extend)
    }

    @Sendable func extend(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireAppStoreSupportCaller()
        let original = try context.parameters.require("original_transaction_id")
        guard RefundHistoryController.isTransactionID(original) else {
            throw AppStoreSupportError.subscriptionNotFound(original)
        }
        let key = try Self.idempotencyKey(request.headers)
        let body = try await JSONBody.decode(ExtendRequest.self, from: request, limit: maxBodyBytes)
        var problems: [FieldProblem] = []
        if !(1...90).contains(body.extendByDays) {
            problems.append(FieldProblem(pointer: "/extend_by_days", detail: "must be 1 to 90 (Apple's limit)"))
        }
        if !(0...3).contains(body.reasonCode) {
            problems.append(
                FieldProblem(
                    pointer: "/reason_code",
                    detail: "must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue)"))
        }
        guard problems.isEmpty else { throw RequestError.validationFailed(problems) }
        let (record, replayed) = try await service.logging(to: context.logger).extend(
            .init(
                originalTransactionID: original, extendByDays: body.extendByDays, reasonCode: body.reasonCode,
                idempotencyKey: key),
            appID: caller.appID, requestID: context.requestID)
        context.logger.info(
            "subscription renewal date extended",
            metadata: [
                "original_transaction_id": "\(original)", "days": "\(record.extendByDays)", "replayed": "\(replayed)",
            ])
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if replayed { headers[.idempotentReplayed] = "true" }
        return try JSONBody.response(Extension(record), headers: headers)
    }

    /// The `Idempotency-Key`: 1 to 255 printable ASCII characters.
    static func idempotencyKey(_ headers: HTTPFields) throws -> String {
        guard let key = headers[.idempotencyKey] else { throw AppStoreSupportError.idempotencyKeyRequired }
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw RequestError.badHeader(name: "Idempotency-Key", detail: "must be 1 to 255 printable ASCII characters")
        }
        return key
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key`: names one attempt at a request, so a retry of it is not done twice.
    static let idempotencyKey = "idempotency-key".fieldName
    /// `Idempotent-Replayed: true`: this answer was kept from the first request with the same key.
    static let idempotentReplayed = "idempotent-replayed".fieldName
}
