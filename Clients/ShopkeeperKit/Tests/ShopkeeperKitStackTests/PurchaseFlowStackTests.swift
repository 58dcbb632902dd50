import Foundation
import Testing

@testable import ShopkeeperKit

/// The purchase flow against the real local stack, through the sandbox store. Serialized: one test injects store
/// faults at the shared sandbox store.
@Suite(.serialized, .enabled(if: Stack.available)) struct PurchaseFlowStackTests {
    @Test func eachProductTypeIsBoughtGrantedAndFinished() async throws {
        let stack = try Stack.require()
        let monthly = try await stack.createProduct(type: .autoRenewable, duration: "P1M", group: "kit_pro")
        let device = try stack.device()
        let kit = device.shopkeeper
        await kit.start()
        var updates = await kit.customerInfoUpdates().makeAsyncIterator()

        guard case .delivered(let garden) = try await kit.purchase(productID: "extra_garden") else {
            Issue.record("the non-consumable was not delivered")
            return
        }
        #expect(garden.customer?.entitlements["extra_garden"]?.active == true)
        // The stream starts with the last info known (the answer to the app transaction `start()` sent).
        var update = await updates.next()
        while let seen = update, seen.entitlements["extra_garden"] == nil { update = await updates.next() }
        #expect(update?.entitlements["extra_garden"]?.active == true, "the change reached customerInfoUpdates")

        guard case .delivered(let fertilizer) = try await kit.purchase(productID: "fertilizer_10") else {
            Issue.record("the consumable was not delivered")
            return
        }
        #expect(fertilizer.customer?.consumableBalances["fertilizer_10"] == 10)

        guard case .delivered(let service) = try await kit.purchase(productID: "service_year") else {
            Issue.record("the non-renewing subscription was not delivered")
            return
        }
        #expect(service.customer?.subscriptions.contains { $0.productID == "service_year" && $0.active } == true)

        guard case .delivered = try await kit.purchase(productID: monthly.productID) else {
            Issue.record("the auto-renewable subscription was not delivered")
            return
        }
        let info = try await kit.customerInfo()
        #expect(
            info.subscriptions.contains { $0.productID == monthly.productID && $0.type == .autoRenewable && $0.active })
        #expect(info.activeEntitlements.isSuperset(of: ["extra_garden", monthly.productID]))
        #expect(await kit.pendingPurchases.isEmpty)
        #expect(try await device.store.unfinishedTransactions().isEmpty, "every transaction is finished")
        await kit.stop()
    }

    @Test func aPurchaseSurvivesACrashBetweenBuyingAndSending() async throws {
        let stack = try Stack.require()
        let first = try stack.device()
        let buyer = await first.shopkeeper.appUserID
        // The store charged, then the app died before it sent anything: only the store's queue knows.
        let bought = try #require(
            try await first.store.purchase(
                DevicePurchaseRequest(
                    storeProductID: "\(stack.bundleID).extra_garden", productType: .nonConsumable,
                    appAccountToken: AppAccountToken.uuid(forAppUserID: buyer))))
        #expect(try await first.store.unfinishedTransactions().map(\.id) == [bought.id])

        // The app starts again: a new client on the same device finds the transaction and delivers it.
        let restarted = try stack.device(directory: first.directory)
        #expect(await restarted.shopkeeper.appUserID == buyer)
        await restarted.shopkeeper.start()
        #expect(await restarted.shopkeeper.pendingPurchases.isEmpty)
        #expect(try await restarted.store.unfinishedTransactions().isEmpty)
        #expect(try await restarted.shopkeeper.customerInfo().entitlements["extra_garden"]?.active == true)
        await restarted.shopkeeper.stop()
    }

    @Test func aStoreOutageKeepsTheTransactionUnfinishedAndALaterRetryFinishesIt() async throws {
        let stack = try Stack.require()
        // Google Play: the verifier looks the token up at the (sandbox) Play Developer API, which fails until the
        // faults are cleared (the count is large because the store's own notification of the purchase makes the
        // verifier look it up too): it answers 503 store_unavailable, with nothing recorded.
        try await stack.sandbox("DELETE", "sandbox/faults")
        try await stack.sandbox(
            "POST", "sandbox/faults", json: ["endpoint": "google.products.get", "count": 1000, "status": 503])
        let device = try stack.device(platform: .playStore, retry: .none)
        let outcome = try await device.shopkeeper.purchase(productID: "extra_garden")
        guard case .pending(let error) = outcome else {
            Issue.record("expected the purchase to wait, got \(outcome)")
            return
        }
        #expect(error.status == 503)
        #expect(error.code == "store_unavailable")
        let kept = await device.shopkeeper.pendingPurchases
        #expect(kept.count == 1)
        #expect(kept.first?.lastError == "store_unavailable")
        #expect(try await device.store.unfinishedTransactions().count == 1, "not finished at the store")
        #expect(try await device.shopkeeper.customerInfo().entitlements["extra_garden"] == nil)

        // The app restarts (the queue is on disk) and the store is back: the retry delivers and finishes it.
        try await stack.sandbox("DELETE", "sandbox/faults")
        let restarted = try stack.device(directory: device.directory, platform: .playStore, retry: .none)
        #expect(await restarted.shopkeeper.pendingPurchases.map(\.id) == kept.map(\.id))
        let outcomes = await restarted.shopkeeper.retryPendingPurchases()
        guard case .delivered(let response)? = outcomes[kept[0].id] else {
            Issue.record("the retry did not deliver: \(outcomes)")
            return
        }
        #expect(response.customer?.entitlements["extra_garden"]?.active == true)
        #expect(await restarted.shopkeeper.pendingPurchases.isEmpty)
        #expect(try await restarted.store.unfinishedTransactions().isEmpty)
    }

    @Test func aPurchaseOfAProductTheCatalogLacksIsKeptUntilItHasIt() async throws {
        let stack = try Stack.require()
        let device = try stack.device()
        let id = "kit_late_\(UUID().uuidString.prefix(8).lowercased())"
        // Sold in App Store Connect before the developer added it to Shopkeeper's catalog.
        let bought = try #require(
            try await device.store.purchase(
                DevicePurchaseRequest(
                    storeProductID: "\(stack.bundleID).\(id)", productType: .consumable,
                    appAccountToken: AppAccountToken.uuid(forAppUserID: await device.shopkeeper.appUserID))))
        await device.shopkeeper.start()
        #expect(await device.shopkeeper.pendingPurchases.first?.lastError == "unknown_product")
        #expect(try await device.store.unfinishedTransactions().map(\.id) == [bought.id], "kept unfinished")

        _ = try await stack.admin(
            "PUT", "v1/admin/products/\(id)",
            json: [
                "product_id": id, "type": "consumable", "review_state": "approved", "cleared_for_sale": true,
                "store_product_ids": ["app_store": "\(stack.bundleID).\(id)"], "consumable_quantity": 3,
                "default_locale": "en", "localizations": ["en": ["name": id]],
            ])
        let outcomes = await device.shopkeeper.retryPendingPurchases()
        guard case .delivered(let response)? = outcomes[bought.id] else {
            Issue.record("not delivered once the catalog has it: \(outcomes)")
            return
        }
        #expect(response.customer?.consumableBalances[id] == 3)
        #expect(try await device.store.unfinishedTransactions().isEmpty)
        await device.shopkeeper.stop()
    }

    @Test func aForgedProofIsFinishedAsRefused() async throws {
        let stack = try Stack.require()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        let real = try stack.device(directory: folder).store
        let device = try stack.device(directory: folder, store: ForgingDeviceStore(real: real))
        let outcome = try await device.shopkeeper.purchase(productID: "extra_garden")
        guard case .refused(let code) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(code == "invalid_signature")
        #expect(await device.shopkeeper.refusedTransactions.map(\.code) == ["invalid_signature"])
        #expect(await device.shopkeeper.pendingPurchases.isEmpty, "not kept: it will never verify")
        #expect(try await real.unfinishedTransactions().isEmpty, "finished, so the store stops offering it")
        #expect(try await device.shopkeeper.customerInfo().entitlements["extra_garden"] == nil)
    }

    @Test func restoreOnANewDeviceBringsBackANonConsumableAndAnActiveSubscription() async throws {
        let stack = try Stack.require()
        let monthly = try await stack.createProduct(type: .autoRenewable, duration: "P1M", group: "kit_restore")
        let account = FileManager.default.temporaryDirectory.appendingPathComponent("kit-account-\(UUID().uuidString)")
        let user = "kit-user-\(UUID().uuidString.prefix(8))"

        let phone = try stack.device(account: account)
        _ = try await phone.shopkeeper.logIn(user)
        for product in ["extra_garden", monthly.productID] {
            guard case .delivered = try await phone.shopkeeper.purchase(productID: product) else {
                Issue.record("\(product) was not delivered")
                return
            }
        }

        // A new phone of the same store account: a fresh install, logged in as the same user, restores.
        let tablet = try stack.device(account: account)
        #expect(await tablet.shopkeeper.appUserID != user)
        _ = try await tablet.shopkeeper.logIn(user)
        let restored = try await tablet.shopkeeper.restore()
        #expect(restored.appUserID == user)
        #expect(restored.entitlements["extra_garden"]?.active == true)
        #expect(restored.entitlements[monthly.productID]?.active == true)
        #expect(restored.subscriptions.contains { $0.productID == monthly.productID && $0.state == "active" })
    }

    @Test func restoreOnASharedDeviceLeavesAnotherUsersPurchasesTheirs() async throws {
        let stack = try Stack.require()
        let device = try stack.device()
        let kit = device.shopkeeper
        let (anna, ben) = ("kit-anna-\(UUID().uuidString.prefix(6))", "kit-ben-\(UUID().uuidString.prefix(6))")
        _ = try await kit.logIn(anna)
        guard case .delivered = try await kit.purchase(productID: "extra_garden") else {
            Issue.record("not delivered")
            return
        }
        // Ben uses the same device and store account.
        try await kit.logOut()
        _ = try await kit.logIn(ben)
        guard case .delivered = try await kit.purchase(productID: "greenhouse") else {
            Issue.record("not delivered")
            return
        }
        // The store account holds both purchases, and the restore sends both: Anna logged in, so hers stays hers.
        let restored = try await kit.restore()
        #expect(restored.appUserID == ben)
        #expect(restored.entitlements["greenhouse"]?.active == true)
        #expect(restored.entitlements["extra_garden"] == nil, "Anna's purchase stays Anna's")
        #expect(restored.ownedByOtherAccount.map(\.productID) == ["extra_garden"])
        #expect(restored.restored.map(\.productID) == ["greenhouse"])
    }

    @Test func aRetriedSpendIsSpentOnce() async throws {
        let stack = try Stack.require()
        let device = try stack.device()
        guard case .delivered = try await device.shopkeeper.purchase(productID: "fertilizer_10") else {
            Issue.record("fertilizer was not delivered")
            return
        }
        // The spend is kept with its key, sent, spent by the server... and the app dies before the answer.
        let spend = try await device.shopkeeper.prepareConsume(productID: "fertilizer_10", quantity: 3)
        let lost = try await device.shopkeeper.api.consume(
            appUserID: spend.appUserID, productID: spend.productID, quantity: spend.quantity,
            idempotencyKey: spend.idempotencyKey)
        #expect(lost.balance == 7)

        // Next launch: the kept spend is sent again with the same key, and the server answers it without spending.
        let restarted = try stack.device(directory: device.directory)
        #expect(await restarted.shopkeeper.pendingConsumes.map(\.idempotencyKey) == [spend.idempotencyKey])
        await restarted.shopkeeper.start()
        #expect(await restarted.shopkeeper.pendingConsumes.isEmpty)
        #expect(try await restarted.shopkeeper.customerInfo().consumableBalances["fertilizer_10"] == 7)

        // A new spend is a new key.
        let next = try await restarted.shopkeeper.consume(productID: "fertilizer_10", quantity: 3)
        #expect(next.balance == 4)
        await restarted.shopkeeper.stop()
    }

    @Test func logInLinksTheAnonymousPurchasesTrialsAndEligibility() async throws {
        let stack = try Stack.require()
        let pro = try await stack.createProduct(
            type: .autoRenewable, duration: "P1M", trialDuration: "P7D",
            group: "kit_trial_\(UUID().uuidString.prefix(6))")
        let device = try stack.device()
        let kit = device.shopkeeper
        guard case .delivered = try await kit.purchase(productID: "extra_garden") else {
            Issue.record("not delivered")
            return
        }
        let user = "kit-login-\(UUID().uuidString.prefix(8))"
        let info = try await kit.logIn(user)
        #expect(info.appUserID == user)
        #expect(info.entitlements["extra_garden"]?.active == true, "what the anonymous id bought is the user's")
        #expect(Set(info.aliases).isSuperset(of: [user, await kit.anonymousID]))

        #expect(try await kit.eligibility(productID: pro.productID).eligible)
        let trial = try await kit.startTrial(productID: pro.productID)
        #expect(trial.state == "active")
        let after = try await kit.eligibility(productID: pro.productID)
        #expect(!after.eligible)
        #expect(try await kit.customerInfo().entitlements[pro.productID]?.source == "trial")
    }

    @Test func promotionalOffersAreSignedOnlyForFormerSubscribers() async throws {
        let stack = try Stack.require()
        let pro = try await stack.createProduct(
            type: .autoRenewable, duration: "P1M", group: "kit_offer_\(UUID().uuidString.prefix(6))")
        let device = try stack.device()
        let kit = device.shopkeeper
        do {
            _ = try await kit.offerSignature(productID: pro.productID, offer: .promotional, offerID: "comeback")
            Issue.record("a promotional offer was signed for a customer who never subscribed")
        } catch {
            #expect(error.code == "offer_not_eligible", "\(error)")
        }
        guard case .delivered = try await kit.purchase(productID: pro.productID) else {
            Issue.record("the subscription was not delivered")
            return
        }
        let signed = try await kit.offerSignature(productID: pro.productID, offer: .promotional, offerID: "comeback")
        #expect(signed.storeProductID == pro.storeProductID)
        #expect(signed.appAccountToken == AppAccountToken.uuid(forAppUserID: await kit.appUserID))
        #expect(signed.signature?.signature.isEmpty == false)
        #expect(signed.jws.split(separator: ".").count == 3)
        let introductory = try await kit.offerSignature(productID: pro.productID, offer: .introductory)
        #expect(introductory.allowIntroductoryOffer == false, "the customer subscribed in the group already")
        // Bought with the offer: the store checks the server's signature and the purchase carries the offer.
        guard
            case .delivered(let comeback) = try await kit.purchase(
                productID: pro.productID, promotionalOfferID: "comeback")
        else {
            Issue.record("the purchase with the promotional offer was not delivered")
            return
        }
        let offered = comeback.transactions.first { $0.storeProductID == pro.storeProductID }
        #expect(offered?.offer?.type == "promotional", "\(String(describing: offered))")
        #expect(offered?.offer?.identifier == "comeback")
        // An offer id the store does not know the server's signature for is refused by the store, not bought.
        await #expect(throws: ShopkeeperError.self) {
            _ = try await device.store.purchase(
                DevicePurchaseRequest(
                    storeProductID: pro.storeProductID, productType: .autoRenewable, period: "P1M",
                    appAccountToken: AppAccountToken.uuid(forAppUserID: await kit.appUserID),
                    promotionalOffer: OfferSignature(
                        offer: .promotional, productID: pro.productID, storeProductID: pro.storeProductID,
                        offerID: "forged", appAccountToken: signed.appAccountToken, signature: signed.signature,
                        jws: signed.jws)))
        }
    }

    @Test func aFreeProductIsClaimedOnce() async throws {
        let stack = try Stack.require()
        let kit = try stack.device().shopkeeper
        #expect(try await kit.catalog().product("seeds_sunflower")?.availability == .free)
        let first = try await kit.claim(productID: "seeds_sunflower")
        #expect(first.created)
        #expect(first.customer.productGrants.map(\.productID) == ["seeds_sunflower"])
        #expect(first.customer.productGrants.first?.source == "free")
        let again = try await kit.claim(productID: "seeds_sunflower")
        #expect(!again.created, "claiming again changes nothing")
        await #expect(throws: ShopkeeperError.self) { try await kit.claim(productID: "extra_garden") }
    }

    @Test func theCatalogIsFilledInAndCachedByETag() async throws {
        let stack = try Stack.require()
        let kit = try stack.device().shopkeeper
        let catalog = try await kit.catalog()
        #expect(catalog.build == .development, "the sandbox store is a development build")
        #expect(catalog.platform == .appStore)
        #expect(catalog.appVersion == "2.0")
        #expect(catalog.product("greenhouse")?.availability == .purchasable, "app version 2.0 was sent")
        #expect(try await kit.catalog() == catalog)
        let etag = await kit.api.cache.etag(
            for: "\(stack.gatewayURL.absoluteString)/v1/catalog?platform=app_store&app_version=2.0&build=development"
                + (Shopkeeper.deviceLocale().map { "&locale=\($0)" } ?? "") + "&storefront=USA")
        #expect(etag != nil, "the catalog's ETag is kept for If-None-Match")
        #expect(await kit.api.cache.notModifiedCount == 1, "the second catalog was a 304 answered from the cache")

        let first = try await kit.customerInfo()
        #expect(try await kit.customerInfo() == first)
        #expect(await kit.api.cache.notModifiedCount == 2, "so was the second customer info")
    }

    @Test func aTransactionThatArrivesByItselfIsDeliveredWhileStarted() async throws {
        let stack = try Stack.require()
        let device = try stack.device()
        let kit = device.shopkeeper
        await kit.start()
        // Approved later (Ask to Buy), or bought on another device: it comes through the store's updates.
        let arrived = try await device.store.deliverExternally(
            DevicePurchaseRequest(
                storeProductID: "\(stack.bundleID).seeds_orchid", productType: .nonConsumable,
                appAccountToken: AppAccountToken.uuid(forAppUserID: await kit.appUserID)))
        let delivered = try await eventually {
            let pending = await kit.pendingPurchases
            return try await device.store.unfinishedTransactions().isEmpty && pending.isEmpty
        }
        #expect(delivered, "transaction \(arrived.id) was not delivered")
        let info = try await kit.customerInfo()
        #expect(info.nonSubscriptionPurchases.contains { $0.transactionID == arrived.id })
        await kit.stop()
    }
}
