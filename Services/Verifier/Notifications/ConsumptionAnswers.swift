import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Apple's `CONSUMPTION_REQUEST`: a customer asked for a refund of a purchase, and Apple asks the app what it knows
/// (App Store Server API, Send Consumption Information). Answered only when the app has set `consumption_answers`
/// with its Apple credentials (asserting its customers' consent, which Apple requires), has an App Store Server API
/// key, and the purchase was delivered: a customer owns it here.
extension AppleNotifications {
    /// Answers a processed `CONSUMPTION_REQUEST` whose facts were applied with `outcomes`; returns what was done, for
    /// the record. Throws when the store could not be reached (the notification is tried again later).
    func answerConsumptionRequest(_ notification: ReceivedNotification, outcomes: [TransactionOutcome])
        async throws(VerifierError) -> String
    {
        guard let credentials = try? await credentials.apple(appID: notification.appID) else {
            throw .storeNotConfigured(.apple)
        }
        guard let answers = credentials.consumptionAnswers else {
            return "not answered: consumption_answers is not set (no customer consent)"
        }
        guard let key = credentials.apiKey else {
            return "not answered: no App Store Server API key"
        }
        let payload: AppleNotificationPayload
        do {
            payload = try await signedData.verify(notification.payload, as: AppleNotificationPayload.self)
        } catch {
            throw .proofRejected(code: error.code, detail: error.description)
        }
        guard let jws = payload.data?.signedTransactionInfo else {
            return "not answered: the notification names no transaction"
        }
        let transaction = try await verifier.verifySignedTransaction(jws, credentials: credentials)
        let outcome = outcomes.first { $0.transactionID == transaction.transactionID }?.outcome
        guard let outcome, outcome != .notOwned, outcome != .unknownProduct else {
            return "not answered: no customer owns transaction \(transaction.transactionID) here"
        }
        let body = AppStoreConsumptionRequest(
            customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: answers.sampleContentProvided,
            refundPreference: answers.refundPreference)
        try await verifier.api.sendConsumption(
            transaction.transactionID, body: body, environment: transaction.environment, credentials: credentials,
            key: key)
        let preference = answers.refundPreference ?? "none"
        return "answered: DELIVERED, sample content \(answers.sampleContentProvided), refund preference \(preference)"
    }
}
