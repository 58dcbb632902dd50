import Foundation

extension Shopkeeper {
    /// Spends units of a consumable, exactly once: the `Idempotency-Key` is made once and kept on disk until
    /// Shopkeeper answers. While a spend of the same product and quantity waits for its answer (after a lost
    /// answer or a crash), calling this again sends that spend again with its key instead of a second one.
    public func consume(productID: String, quantity: Int = 1) async throws(ShopkeeperError) -> ConsumeResult {
        try await sendConsume(prepareConsume(productID: productID, quantity: quantity))
    }

    /// Sends every spend still waiting for its answer, each with its own key.
    public func retryPendingConsumes() async {
        for entry in state.pendingConsumes { _ = try? await sendConsume(entry) }
    }

    /// The kept spend of this product and quantity for the current user, or a new one, saved before anything is
    /// sent.
    func prepareConsume(productID: String, quantity: Int) throws(ShopkeeperError) -> PendingConsume {
        let user = state.appUserID
        if let waiting = state.pendingConsumes.first(where: {
            $0.appUserID == user && $0.productID == productID && $0.quantity == quantity
        }) {
            return waiting
        }
        let entry = PendingConsume(
            idempotencyKey: UUID().uuidString.lowercased(), appUserID: user, productID: productID, quantity: quantity)
        state.pendingConsumes.append(entry)
        try save()
        return entry
    }

    func sendConsume(_ entry: PendingConsume) async throws(ShopkeeperError) -> ConsumeResult {
        do throws(ShopkeeperError) {
            let result = try await api.consume(
                appUserID: entry.appUserID, productID: entry.productID, quantity: entry.quantity,
                idempotencyKey: entry.idempotencyKey)
            forgetConsume(entry)
            publish(result.customer)
            return result
        } catch {
            // A verdict (409 insufficient_balance, 404, 422) is final for this key; keep it only when no answer
            // came, or one that may change.
            if case .server = error, !error.isRetryable { forgetConsume(entry) }
            throw error
        }
    }

    private func forgetConsume(_ entry: PendingConsume) {
        state.pendingConsumes.removeAll { $0.idempotencyKey == entry.idempotencyKey }
        try? save()
    }
}
