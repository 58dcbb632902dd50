import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The sandbox's Get Notification History holds requests to Apple's rules and pages as Apple does.
@Suite struct NotificationHistoryQueryTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let hour: Int64 = 3_600_000

    static func query(
        _ start: Int64?, _ end: Int64?, type: String? = nil, subtype: String? = nil, transaction: String? = nil,
        environment: AppleEnvironment = .sandbox
    ) -> AppleNotificationHistoryQuery {
        AppleNotificationHistoryQuery(
            request: AppStoreNotificationHistoryRequest(
                startDate: start, endDate: end, notificationType: type, notificationSubtype: subtype,
                transactionId: transaction),
            environment: environment, now: now)
    }

    @Test(arguments: [
        (query(nil, now.appleMilliseconds), AppStoreErrorCode.invalidStartDate),
        (query(now.appleMilliseconds - hour, nil), .invalidEndDate),
        (query(now.appleMilliseconds, now.appleMilliseconds - hour), .startDateAfterEndDate),
        (query(now.appleMilliseconds - hour, now.appleMilliseconds - hour), .startDateAfterEndDate),
        (query(now.appleMilliseconds + hour, now.appleMilliseconds + 2 * hour), .startDateAfterEndDate),
        (query(now.appleMilliseconds - 31 * 24 * hour, now.appleMilliseconds), .startDateTooFarInPast),
        (
            query(now.appleMilliseconds - hour, now.appleMilliseconds, type: "REFUND", transaction: "1"),
            .multipleFiltersSupplied
        ),
        (query(now.appleMilliseconds - hour, now.appleMilliseconds, type: "NOT_A_TYPE"), .invalidNotificationType),
        (
            query(now.appleMilliseconds - hour, now.appleMilliseconds, subtype: "GRACE_PERIOD"),
            .invalidNotificationType
        ),
    ])
    func refusesWhatAppleRefuses(query: AppleNotificationHistoryQuery, code: AppStoreErrorCode) {
        #expect(throws: AppleAPIError.api(code)) { try query.range() }
    }

    @Test func keepsProductionHistoryLongerAndTakesAFutureEndAsNow() throws {
        let production = Self.query(
            Self.now.appleMilliseconds - 90 * 24 * Self.hour, Self.now.appleMilliseconds + Self.hour,
            environment: .production)
        #expect(try production.range().upperBound == Self.now.appleMilliseconds)
    }

    @Test func pagesTwentyAtATimeBehindATokenForTheSameRequestOnly() throws {
        let deliveries = (0..<45).map { index in
            var delivery = NotificationDelivery(
                id: "n\(index)", store: "apple", type: index % 3 == 0 ? "REFUND" : "DID_RENEW", subtype: nil,
                transactionId: "\(index)", originalTransactionId: nil, purchaseToken: nil, url: "http://x",
                createdAt: Self.now.addingTimeInterval(Double(index - 50)), body: "")
            delivery.signedPayload = "payload-\(index)"
            delivery.delivered = index % 2 == 0
            return delivery
        }
        let all = Self.query(Self.now.appleMilliseconds - Self.hour, Self.now.appleMilliseconds)
        let first = try all.page(of: deliveries, customer: nil, token: nil)
        #expect(first.notificationHistory?.count == 20)
        #expect(first.hasMore == true)
        let token = try #require(first.paginationToken)
        let second = try all.page(of: deliveries, customer: nil, token: token)
        let third = try all.page(of: deliveries, customer: nil, token: second.paginationToken)
        #expect(third.hasMore == false && third.paginationToken == nil)
        let payloads = [first, second, third].flatMap { $0.notificationHistory ?? [] }.compactMap(\.signedPayload)
        #expect(payloads == (0..<45).map { "payload-\($0)" })

        let refunds = Self.query(Self.now.appleMilliseconds - Self.hour, Self.now.appleMilliseconds, type: "REFUND")
        #expect(throws: AppleAPIError.api(.invalidPaginationToken)) {
            try refunds.page(of: deliveries, customer: nil, token: token)
        }
        #expect(try refunds.page(of: deliveries, customer: nil, token: nil).notificationHistory?.count == 15)

        var failures = all.request
        failures.onlyFailures = true
        let undelivered = AppleNotificationHistoryQuery(request: failures, environment: .sandbox, now: Self.now)
        let customer = try undelivered.page(of: deliveries, customer: ["1", "2", "3"], token: nil)
        #expect(customer.notificationHistory?.compactMap(\.signedPayload) == ["payload-1", "payload-3"])
    }
}
