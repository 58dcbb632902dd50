import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The Play sandbox's quantity-based partial refunds: some units of a multi-quantity one-time purchase refunded, told by
/// a voided-purchase notification with `refundType` 2, listed with `voidedQuantity` only to a query that asks for
/// them, and seen in the purchase's `refundableQuantity`; the last units void the purchase.
@Suite struct GooglePartialRefundTests {
    static let voided = GoogleRepurchaseAndVoidTests.voided

    @Test func unitsAreRefundedAFewAtATimeAndListedOnlyWhenAskedFor() async throws {
        try await NotificationWorld.run { world in
            let bought = try await world.sandbox.buyGoogle(["quantity": 5])
            let token = bought.purchaseToken
            let partly = try await world.control(
                .post, "/sandbox/google/purchases/\(token)/refund", json: ["quantity": 2])
            #expect(partly["refunded_quantity"] as? Int == 2 && partly["voided"] as? Bool == false, "\(partly)")
            let bearer = try await world.sandbox.googleAccessToken()
            let path = "\(GooglePlayTests.products)/fertilizer/tokens/\(token)"
            let read = try world.sandbox.decode(
                GoogleProductPurchase.self, try await world.sandbox.send(.get, path, bearer: bearer))
            #expect(read.quantity == 5 && read.refundableQuantity == 3 && read.purchaseState == 0)

            // Listed with its quantity only to a query that includes partial refunds.
            let plain = try world.sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await world.sandbox.send(.get, Self.voided + "?type=1", bearer: bearer))
            #expect(plain.voidedPurchases == nil)
            let asked = try world.sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await world.sandbox.send(
                    .get, Self.voided + "?type=1&includeQuantityBasedPartialRefund=true", bearer: bearer))
            #expect(asked.voidedPurchases?.map(\.voidedQuantity) == [2], "\(asked)")

            // Too many units, or none, are refused; the last 3 void the purchase.
            let tooMany = try await world.sandbox.send(
                .post, "/sandbox/google/purchases/\(token)/refund", json: ["quantity": 4])
            #expect(tooMany.status.code >= 400 && tooMany.status.code < 500)
            let none = try await world.sandbox.send(
                .post, "/sandbox/google/purchases/\(token)/refund", json: ["quantity": 0])
            #expect(none.status.code == 422 || none.status.code == 400)
            let rest = try await world.control(
                .post, "/sandbox/google/purchases/\(token)/refund", json: ["quantity": 3])
            #expect(rest["refunded_quantity"] as? Int == 5 && rest["voided"] as? Bool == true, "\(rest)")
            let after = try world.sandbox.decode(
                GoogleProductPurchase.self, try await world.sandbox.send(.get, path, bearer: bearer))
            #expect(after.refundableQuantity == 0 && after.purchaseState == 1)

            // The purchase and two partial refunds were pushed, each with refundType 2.
            let received = try await world.inbox.wait(for: 3, at: "/google")
            let refunds = received.compactMap {
                (try? JSONDecoder().decode(PubSubPushEnvelope.self, from: Data($0.body.utf8)))?.message
                    .developerNotification?.voidedPurchaseNotification
            }
            #expect(refunds.map(\.refundType) == [2, 2], "\(refunds)")
            #expect(refunds.allSatisfy { $0.purchaseToken == token && $0.orderId == bought.orderId })
        }
    }
}
