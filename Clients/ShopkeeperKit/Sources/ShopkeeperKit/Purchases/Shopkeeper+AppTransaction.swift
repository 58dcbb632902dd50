import Foundation

extension Shopkeeper {
    /// Sends the store's app transaction (`POST /v1/purchases` with `signed_app_transaction`) unless this install
    /// sent one already: Shopkeeper then grants what it proves (the products a paid edition includes, those
    /// grandfathered below the version the store account first got). Kept as sent once Shopkeeper took it or
    /// refused it for good; anything else (no network, an outage) leaves it for the next ``start()``.
    func sendAppTransactionOnce() async {
        guard state.appTransaction == nil, !appTransactionInFlight else { return }
        appTransactionInFlight = true
        defer { appTransactionInFlight = false }
        guard let jws = try? await store.appTransaction() else { return }
        let buyer = state.appUserID
        do throws(ShopkeeperError) {
            let response = try await api.submitAppTransaction(
                jws, appUserID: buyer, deviceID: state.deviceID, appVersion: configuration.appVersion)
            remember(appTransaction: response.appTransaction, refusal: nil, for: buyer)
            if let customer = response.customer { publish(customer) }
        } catch {
            if case .refused(let code) = SubmissionVerdict.forError(error) {
                remember(appTransaction: nil, refusal: code, for: buyer)
            }
        }
    }

    /// Notes that Shopkeeper answered this install's app transaction.
    func remember(appTransaction: AppTransactionResult?, refusal: String?, for appUserID: String) {
        state.appTransaction = SentAppTransaction(
            appUserID: appUserID, sentAt: Date(), appTransactionID: appTransaction?.appTransactionID, refusal: refusal)
        try? save()
    }
}
