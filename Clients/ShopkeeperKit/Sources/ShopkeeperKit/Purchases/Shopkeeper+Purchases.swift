import Foundation

/// How a purchase ended.
public enum PurchaseOutcome: Sendable {
    /// Shopkeeper verified and granted it; the store transaction is finished.
    case delivered(PurchaseResponse)
    /// Shopkeeper will never take it (the code says why); the store transaction is finished.
    case refused(code: String)
    /// Not delivered yet (an outage, no network): kept unfinished and sent again later. Nothing is lost.
    case pending(ShopkeeperError)
}

extension Shopkeeper {
    /// Buys a catalog product through the device's store with the current user's `appAccountToken`, keeps the
    /// transaction on disk, and sends its proof. Throws ``ShopkeeperError/purchaseNotCompleted(_:)`` when the user
    /// cancelled or the purchase waits for approval. With `promotionalOfferID`, a subscription is bought with that
    /// App Store promotional offer, signed by the server for this customer first (only for customers who subscribed
    /// in the product's group before: `offer_not_eligible` otherwise).
    public func purchase(productID: String, quantity: Int = 1, promotionalOfferID: String? = nil)
        async throws(ShopkeeperError) -> PurchaseOutcome
    {
        let catalog = try await catalog()
        guard let item = catalog.product(productID), item.availability == .purchasable,
            let storeProductID = item.storeProductID
        else { throw .productUnavailable(productID) }
        let buyer = state.appUserID
        let token = AppAccountToken.uuid(forAppUserID: buyer)
        var offer: OfferSignature?
        if let promotionalOfferID {
            // Signed for this buyer's token (`offer_not_eligible` for a customer who never subscribed in the group).
            offer = try await offerSignature(productID: productID, offer: .promotional, offerID: promotionalOfferID)
            guard offer?.appAccountToken == token else {
                throw .deviceStore("the promotional offer was signed for another appAccountToken")
            }
        }
        let request = DevicePurchaseRequest(
            storeProductID: storeProductID, productType: item.type, period: item.duration, appAccountToken: token,
            quantity: quantity, promotionalOffer: offer)
        guard let transaction = try await store.purchase(request) else {
            throw .purchaseNotCompleted(productID)
        }
        try keep(transaction, buyer: buyer)
        return await send(transactionID: transaction.id)
    }

    /// Sends every kept purchase now, whatever its backoff says (call it when the app comes to the foreground or
    /// the network returns). Answers what became of each.
    @discardableResult
    public func retryPendingPurchases() async -> [String: PurchaseOutcome] {
        await collectUnfinished()
        return await drainPendingPurchases(force: true)
    }

    /// "Restore purchases": sends the proof of everything the store account owns (subscriptions included), whoever
    /// it was bought for, and answers what the customer owns now and what became of each purchase. Purchases made
    /// on another install by someone who never logged in (a reinstall without a kept id, a new phone) come back: the
    /// server makes the two anonymous ids one customer. Purchases of an account that logged in (another user of a
    /// shared device, or this person's account before this install) stay there and are listed in
    /// ``RestoreResult/ownedByOtherAccount``: ask the person to log in to that account. The store's app transaction
    /// goes along (the paid edition and grandfathered products come back too), whether this install sent it before
    /// or not.
    public func restore() async throws(ShopkeeperError) -> RestoreResult {
        _ = await retryPendingPurchases()
        let owned = try await store.currentEntitlements()
        // Without one (no network to the App Store) the purchases are restored all the same.
        let appTransaction = try? await store.appTransaction()
        guard !owned.isEmpty || appTransaction != nil else { return RestoreResult(customer: try await customerInfo()) }
        let restorer = state.appUserID
        let response = try await api.restore(
            appUserID: restorer, proofs: owned.map(\.proof), signedAppTransaction: appTransaction,
            deviceID: state.deviceID, appVersion: configuration.appVersion)
        if appTransaction != nil {
            let refusal = response.rejected.first { $0.pointer == "/signed_app_transaction" }?.code
            remember(appTransaction: response.appTransaction, refusal: refusal, for: restorer)
        }
        let customer: CustomerInfo
        if let answered = response.customer {
            customer = answered
            publish(customer)
        } else {
            customer = try await customerInfo()
        }
        return RestoreResult(
            customer: customer, outcomes: response.outcomes, rejected: response.rejected,
            appTransaction: response.appTransaction)
    }

    // MARK: The queue

    func receive(_ transaction: DeviceTransaction) async {
        try? keep(transaction, buyer: state.buyer(of: transaction))
        _ = await send(transactionID: transaction.id)
    }

    /// Keeps every unfinished transaction of the store that is not kept yet.
    func collectUnfinished() async {
        guard let unfinished = try? await store.unfinishedTransactions() else { return }
        for transaction in unfinished { try? keep(transaction, buyer: state.buyer(of: transaction)) }
    }

    func keep(_ transaction: DeviceTransaction, buyer: String) throws(ShopkeeperError) {
        guard !state.pendingPurchases.contains(where: { $0.id == transaction.id }) else { return }
        state.pendingPurchases.append(
            PendingPurchase(
                transaction: transaction, appUserID: buyer, since: Date(), attempts: 0, lastError: nil,
                notBefore: Date()))
        try save()
    }

    func drainPendingPurchases(force: Bool) async -> [String: PurchaseOutcome] {
        let now = Date()
        var outcomes: [String: PurchaseOutcome] = [:]
        for entry in state.pendingPurchases where force || entry.notBefore <= now {
            outcomes[entry.id] = await send(transactionID: entry.id)
        }
        return outcomes
    }

    /// Sends one kept transaction and acts on the verdict.
    func send(transactionID: String) async -> PurchaseOutcome {
        guard let entry = state.pendingPurchases.first(where: { $0.id == transactionID }) else {
            return .pending(.storage("transaction \(transactionID) is not kept"))
        }
        guard !inFlight.contains(transactionID) else { return .pending(.transport("already being sent")) }
        inFlight.insert(transactionID)
        defer { inFlight.remove(transactionID) }
        do throws(ShopkeeperError) {
            let response = try await api.submitPurchase(
                entry.transaction.proof, appUserID: entry.appUserID, deviceID: state.deviceID,
                appVersion: configuration.appVersion)
            // Recorded, but the catalog does not know the product yet: it is granted once the catalog has it and
            // the proof comes again, so the transaction stays unfinished (a consumable would be lost otherwise).
            if response.outcomes.contains(where: { $0.outcome == "unknown_product" }) {
                return postpone(transactionID, error: .productUnavailable(entry.transaction.storeProductID))
            }
            try await store.finish(entry.transaction)
            for outcome in response.outcomes {
                if let productID = outcome.productID { state.deliveredProofs[productID] = entry.transaction.proof }
            }
            forget(transactionID)
            if let customer = response.customer { publish(customer) }
            return .delivered(response)
        } catch {
            switch SubmissionVerdict.forError(error) {
            case .refused(let code):
                do throws(ShopkeeperError) { try await store.finish(entry.transaction) } catch {
                    return postpone(transactionID, error: error)
                }
                forget(transactionID)
                refusedTransactions.append(RefusedTransaction(transaction: entry.transaction, code: code))
                return .refused(code: code)
            case .delivered, .keep:
                return postpone(transactionID, error: error)
            }
        }
    }

    private func forget(_ transactionID: String) {
        state.pendingPurchases.removeAll { $0.id == transactionID }
        try? save()
    }

    private func postpone(_ transactionID: String, error: ShopkeeperError) -> PurchaseOutcome {
        guard let index = state.pendingPurchases.firstIndex(where: { $0.id == transactionID }) else {
            return .pending(error)
        }
        state.pendingPurchases[index].attempts += 1
        state.pendingPurchases[index].lastError =
            if case .productUnavailable = error { "unknown_product" } else { error.code ?? "\(error)" }
        var wait = LocalState.backoff(attempts: state.pendingPurchases[index].attempts)
        if case .server(_, let retryAfter?) = error { wait = max(wait, retryAfter) }
        state.pendingPurchases[index].notBefore = Date().addingTimeInterval(wait)
        try? save()
        scheduleRetry()
        return .pending(error)
    }

    /// While started, sends kept purchases again when their backoff ends.
    private func scheduleRetry() {
        guard listener != nil, retryTask == nil,
            let next = state.pendingPurchases.map(\.notBefore).min()
        else { return }
        let wait = max(0, next.timeIntervalSinceNow)
        retryTask = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            guard !Task.isCancelled else { return }
            await self?.retryTick()
        }
    }

    private func retryTick() async {
        retryTask = nil
        _ = await drainPendingPurchases(force: false)
        scheduleRetry()
    }
}
