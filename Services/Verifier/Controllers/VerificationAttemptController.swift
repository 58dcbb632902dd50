import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/admin/verification-attempts` (secret key): every proof the verifier was asked to verify, refused ones
/// included, newest first: what support reads to answer "why was my purchase refused".
struct VerificationAttemptController {
    let attempts: any VerificationAttemptRepository
    /// Most attempts one page may hold.
    static let maximumLimit = 200
    /// Attempts per page when `limit` is not given.
    static let defaultLimit = 50
    /// The outcomes an attempt can have.
    static let outcomes = ["verified", "invalid", "retryable"]

    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get { request, context in
                let caller = try context.requireSecretCaller()
                let filter = try Self.filter(from: request.uri.queryParameters)
                return try JSONBody.response(
                    try await attempts.attempts(appID: caller.appID, filter: filter),
                    headers: [.cacheControl: "no-store"])
            }
    }

    /// Reads and checks the query; every problem is reported at once (400 `invalid_query`).
    static func filter(from parameters: Parameters) throws(RequestError) -> VerificationAttemptFilter {
        var problems: [FieldProblem] = []
        var filter = VerificationAttemptFilter(limit: defaultLimit)
        if let text = parameters.get("limit") {
            if let limit = Int(text), (1...maximumLimit).contains(limit) {
                filter.limit = limit
            } else {
                problems.append(FieldProblem(pointer: "?limit", detail: "must be an integer from 1 to \(maximumLimit)"))
            }
        }
        if let text = parameters.get("app_user_id") {
            filter.appUserID = AppUserID.validated(text, pointer: "?app_user_id", problems: &problems)
        }
        if let text = parameters.get("outcome") {
            if outcomes.contains(text) {
                filter.outcome = text
            } else {
                problems.append(
                    FieldProblem(pointer: "?outcome", detail: "must be one of \(outcomes.joined(separator: ", "))"))
            }
        }
        if let text = parameters.get("code") {
            if (1...64).contains(text.utf8.count), text.utf8.allSatisfy(Self.isCodeByte) {
                filter.code = text
            } else {
                problems.append(
                    FieldProblem(pointer: "?code", detail: "must be a problem code such as invalid_signature"))
            }
        }
        filter.from = date(parameters.get("from"), pointer: "?from", problems: &problems)
        filter.to = date(parameters.get("to"), pointer: "?to", problems: &problems)
        if let from = filter.from, let to = filter.to, from >= to {
            problems.append(FieldProblem(pointer: "?to", detail: "must be later than from"))
        }
        if let text = parameters.get("before") {
            if let before = Int64(text), before > 0 {
                filter.before = before
            } else {
                problems.append(FieldProblem(pointer: "?before", detail: "must be the next_before of a previous page"))
            }
        }
        guard problems.isEmpty else { throw .invalidQuery(problems) }
        return filter
    }

    /// An RFC 3339 date-time of the query, when given.
    private static func date(_ text: String?, pointer: String, problems: inout [FieldProblem]) -> Date? {
        guard let text else { return nil }
        guard let date = try? Date(text, strategy: .iso8601) else {
            problems.append(FieldProblem(pointer: pointer, detail: "must be a date-time such as 2026-11-28T00:00:00Z"))
            return nil
        }
        return date
    }

    /// Lowercase letters, digits and `_`: the bytes of a problem code.
    private static func isCodeByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_")
    }
}
