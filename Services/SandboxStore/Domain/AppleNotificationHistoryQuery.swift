import Foundation
import ShopkeeperStores

/// Get Notification History over the sandbox's delivery log, with Apple's rules: `startDate` and `endDate` required,
/// the start within the history Apple keeps (180 days in production, 30 in the sandbox) and before the end (an end
/// in the future is now), at most one of `notificationType` and `transactionId`, a subtype only with its type, and
/// 20 records a page behind a `paginationToken` that is good for the same request only.
struct AppleNotificationHistoryQuery: Sendable {
    static let pageSize = 20

    let request: AppStoreNotificationHistoryRequest
    let environment: AppleEnvironment
    /// When the request is answered.
    let now: Date

    /// How long Apple keeps an environment's history.
    static func retention(_ environment: AppleEnvironment) -> TimeInterval {
        (environment == .production ? 180 : 30) * 86_400
    }

    /// The range asked for, in UNIX milliseconds, or Apple's refusal.
    func range() throws(AppleAPIError) -> ClosedRange<Int64> {
        guard let start = request.startDate else { throw .api(.invalidStartDate) }
        guard let requestedEnd = request.endDate else { throw .api(.invalidEndDate) }
        let end = min(requestedEnd, now.appleMilliseconds)
        guard start < requestedEnd, start < end else { throw .api(.startDateAfterEndDate) }
        guard Double(start) >= (now.timeIntervalSince1970 - Self.retention(environment)) * 1000 else {
            throw .api(.startDateTooFarInPast)
        }
        if request.notificationType != nil && request.transactionId != nil { throw .api(.multipleFiltersSupplied) }
        if let type = request.notificationType, AppleNotificationType(rawValue: type) == nil {
            throw .api(.invalidNotificationType)
        }
        if let subtype = request.notificationSubtype {
            guard request.notificationType != nil, AppleNotificationSubtype(rawValue: subtype) != nil else {
                throw .api(.invalidNotificationType)
            }
        }
        return start...end
    }

    /// One page of `deliveries` (the app's, in this environment, oldest first); `customer`: the transaction ids of
    /// the customer `transactionId` names, when it names one.
    func page(of deliveries: [NotificationDelivery], customer: Set<String>?, token: String?) throws(AppleAPIError)
        -> AppStoreNotificationHistoryResponse
    {
        let range = try range()
        var offset = 0
        if let token {
            guard let decoded = pageOffset(of: token) else { throw .api(.invalidPaginationToken) }
            offset = decoded
        }
        let matching = deliveries.filter { delivery in
            range.contains(delivery.createdAt.appleMilliseconds)
                && (request.onlyFailures != true || !delivery.delivered)
                && (request.notificationType.map { $0 == delivery.type } ?? true)
                && (request.notificationSubtype.map { $0 == delivery.subtype } ?? true)
                && (customer.map { ids in delivery.transactionId.map(ids.contains) ?? false } ?? true)
        }
        let page = matching.dropFirst(offset).prefix(Self.pageSize)
        let next = min(offset, matching.count) + page.count
        let more = next < matching.count
        return AppStoreNotificationHistoryResponse(
            paginationToken: more ? self.token(for: next) : nil, hasMore: more,
            notificationHistory: page.map {
                AppStoreNotificationHistoryItem(signedPayload: $0.signedPayload, sendAttempts: $0.sendAttempts)
            })
    }

    /// A token for the page at `offset` of this request.
    func token(for offset: Int) -> String {
        Base64URL.encode(Array("sbxn1.\(offset).\(fingerprint)".utf8))
    }

    /// The offset a token of this request names; `nil` for any other token.
    func pageOffset(of token: String) -> Int? {
        guard let bytes = Base64URL.decode(token) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".")
        guard parts.count == 3, parts[0] == "sbxn1", parts[2] == fingerprint, let offset = Int(parts[1]), offset >= 0
        else { return nil }
        return offset
    }

    /// The request, hashed (FNV-1a): a token is good for the request it was issued for only.
    private var fingerprint: Substring {
        let text = [
            request.startDate.map(String.init), request.endDate.map(String.init), request.notificationType,
            request.notificationSubtype, request.transactionId, request.onlyFailures.map(String.init),
        ].map { $0 ?? "" }.joined(separator: "|")
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return Substring(String(hash, radix: 36))
    }
}
