import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// What the Play sandbox needs to test consuming and voided-purchase polling: a buyer cannot buy a one-time product it
/// owns unconsumed again (Play Billing's `ITEM_ALREADY_OWNED`), a refund can be made without its notification, and a
/// voided-purchases page token carries its query as Google's does.
@Suite struct GoogleRepurchaseAndVoidTests {
    static let products = GooglePlayTests.products
    static let voided = "/google/androidpublisher/v3/applications/com.example.garden/purchases/voidedpurchases"

    @Test func aBuyerBuysAOneTimeProductAgainOnlyOnceItIsConsumed() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try await sandbox.googleAccessToken()
            let first = try await sandbox.buyGoogle(["buyer": "ana"])
            #expect(first.buyer == "ana" && !first.consumed && !first.acknowledged && !first.voided)
            let again = try await sandbox.send(
                .post, "/sandbox/google/purchases",
                json: [
                    "package_name": "com.example.garden", "product_id": "fertilizer", "type": "product", "buyer": "ana",
                ])
            #expect(again.status == .conflict)
            #expect(try sandbox.object(again)["code"] as? String == "item_already_owned")
            // Another buyer, another product, or no buyer named: nothing stops them.
            _ = try await sandbox.buyGoogle(["buyer": "bo"])
            _ = try await sandbox.buyGoogle(["buyer": "ana", "product_id": "seeds"])
            _ = try await sandbox.buyGoogle()

            let path = "\(Self.products)/fertilizer/tokens/\(first.purchaseToken)"
            #expect(try await sandbox.send(.post, path + ":consume", bearer: bearer).status == .ok)
            let shown = try sandbox.decode(
                GooglePurchaseCreated.self,
                try await sandbox.send(.get, "/sandbox/google/purchases/\(first.purchaseToken)"))
            #expect(shown.consumed && shown.acknowledged && shown.purchaseState == 0)
            // Still readable after the consume: consumptionState 1.
            let consumed = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(consumed.consumptionState == 1)
            _ = try await sandbox.buyGoogle(["buyer": "ana"])

            // A refunded purchase no longer blocks its buyer either.
            let refunded = try await sandbox.buyGoogle(["buyer": "cy"])
            try await sandbox.send(.post, "/sandbox/google/purchases/\(refunded.purchaseToken)/refund", json: [:])
            _ = try await sandbox.buyGoogle(["buyer": "cy"])
            #expect(try await sandbox.send(.get, "/sandbox/google/purchases/no-such-token").status == .notFound)
        }
    }

    @Test func aRefundWithoutNotificationIsListedButNotPushed() async throws {
        try await NotificationWorld.run { world in
            let silent = try await world.sandbox.buyGoogle()
            let loud = try await world.sandbox.buyGoogle()
            let quiet = try await world.control(
                .post, "/sandbox/google/purchases/\(silent.purchaseToken)/refund", json: ["notify": false])
            #expect(quiet["voided"] as? Bool == true)
            try await world.control(.post, "/sandbox/google/purchases/\(loud.purchaseToken)/refund", json: [:])
            // Two purchases and one refund were pushed, in the order they happened: the silent refund would be third.
            let received = try await world.inbox.wait(for: 3, at: "/google")
            let notifications = received.compactMap {
                (try? JSONDecoder().decode(PubSubPushEnvelope.self, from: Data($0.body.utf8)))?.message
                    .developerNotification
            }
            let voided = notifications.compactMap(\.voidedPurchaseNotification)
            #expect(voided.map(\.purchaseToken) == [loud.purchaseToken], "\(notifications)")
            #expect(notifications.count == 3)

            let bearer = try await world.sandbox.googleAccessToken()
            let listed = try world.sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await world.sandbox.send(.get, Self.voided + "?type=1", bearer: bearer))
            #expect(listed.voidedPurchases?.map(\.purchaseToken) == [silent.purchaseToken, loud.purchaseToken])
        }
    }

    @Test func aPageTokenCarriesItsQuery() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try await sandbox.googleAccessToken()
            var tokens: [String] = []
            for _ in 0..<3 {
                let bought = try await sandbox.buyGoogle()
                try await sandbox.send(.post, "/sandbox/google/purchases/\(bought.purchaseToken)/refund", json: [:])
                tokens.append(bought.purchaseToken)
            }
            let first = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await sandbox.send(
                    .get, Self.voided + "?type=1&maxResults=2&includeQuantityBasedPartialRefund=false", bearer: bearer))
            #expect(first.voidedPurchases?.map(\.purchaseToken) == Array(tokens.prefix(2)))
            let next = try #require(first.tokenPagination?.nextPageToken)
            // With a token, the times and type given are ignored: the token's query goes on.
            let future = Date().appleMilliseconds + 3_600_000
            let second = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await sandbox.send(
                    .get, Self.voided + "?type=0&startTime=\(future)&token=\(next)", bearer: bearer))
            #expect(second.voidedPurchases?.map(\.purchaseToken) == [tokens[2]])
            #expect(second.tokenPagination == nil)
            let forged = try await sandbox.send(.get, Self.voided + "?token=not-a-page", bearer: bearer)
            #expect(forged.status == .badRequest)
        }
    }
}
