import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// What the Play sandbox needs to test consuming and voided-purchase polling: a buyer cannot buy a one-time product it
/// owns unconsumed again (Play Billing's `ITEM_ALREADY_OWNED`), a refund can be made without its notification, a
/// voided-purchases page token carries its query as Google's does, and a crash never leaves a refund unlisted.
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

    /// A `kill -9` can come between any two writes of the state log. Whatever a refund had written when it came, the
    /// restarted store lists the purchase as voided if and only if the purchase is voided (and ended): a voided
    /// purchase missing from the list would be a refund no one could ever find once its notification was lost, and
    /// it could not be refunded again.
    @Test func aCrashAnywhereInARefundLeavesThePurchaseVoidedOnlyIfListed() async throws {
        let directory = try StateJournalTests.directory()
        defer { try? FileManager.default.removeItem(at: directory.url) }
        let now = Date()
        for kind in [GooglePurchaseRecord.Kind.product, .subscription] {
            let store = try SandboxStore(directory: directory)
            let (bought, _) = try await store.purchaseGoogle(
                GooglePurchaseDraft(
                    packageName: "com.example.garden", productId: kind == .product ? "fertilizer" : "pro", kind: kind,
                    quantity: 1, pending: false, obfuscatedAccountId: nil, test: true, purchaseTime: now,
                    expiryTime: kind == .product ? nil : now.addingTimeInterval(3600), basePlanId: nil,
                    regionCode: "US"))
            let generation = try JSONDecoder().decode(
                SandboxSnapshot.self, from: Data(contentsOf: directory.stateURL)
            ).logGeneration
            let log = directory.logURL(generation: generation)
            let before = try Data(contentsOf: log)
            _ = try await store.refundGoogleNotifying(token: bought.purchaseToken, source: 0, reason: 1)
            let written = try Data(contentsOf: log).dropFirst(before.count)
            let lines = written.split(separator: UInt8(ascii: "\n")).map { Data($0) + Data("\n".utf8) }
            #expect(lines.count == 1, "\(kind): the refund is one change")
            for kept in 0...lines.count {
                let copy = try StateJournalTests.directory()
                defer { try? FileManager.default.removeItem(at: copy.url) }
                try FileManager.default.copyItem(at: directory.stateURL, to: copy.stateURL)
                try (before + lines.prefix(kept).joined()).write(to: copy.logURL(generation: generation))
                let restarted = try SandboxStore(directory: copy)
                let purchase = try #require(await restarted.googlePurchase(token: bought.purchaseToken))
                let listed = await restarted.voidedPurchases(
                    packageName: "com.example.garden", window: 0...Int64.max, includeSubscriptions: true
                ).contains { $0.purchaseToken == bought.purchaseToken }
                let seen = "voided \(purchase.voided), listed \(listed), ended \(purchase.ended ?? false)"
                #expect(
                    purchase.voided == listed && purchase.voided == (purchase.ended == true),
                    "\(kind), killed after \(kept) of the refund's \(lines.count) writes: \(seen)")
                #expect(purchase.voided == (kept == lines.count))
            }
        }
    }
}
