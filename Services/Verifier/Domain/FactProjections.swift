import ShopkeeperClients
import ShopkeeperModels

/// Hands recorded facts to the services that project them: subscriptions first (timelines), then entitlements
/// (grants and the customer info, which reads the timelines). Both are idempotent, so a retry of the pair after
/// a failure of either is safe, and a fact entitlements has applied has been applied by subscriptions too.
struct FactProjections: Sendable {
    let subscriptions: SubscriptionsClient
    let entitlements: EntitlementsClient

    /// Applies `request`'s transactions (and renewal facts) and returns what entitlements answered (its customer as
    /// the text entitlements rendered). With neither
    /// transactions nor a presenter (a notification that carries only renewal info) entitlements has nothing to
    /// apply and is not called: it would refuse the empty request, and the renewal facts reach customer info through
    /// the subscriptions service's timelines.
    func apply(
        _ request: ApplyRequest, renewals: [SubscriptionRenewalFacts] = [], appID: String, requestID: String?
    ) async throws -> CustomerAnswer<ApplyOutcomes> {
        let timed = request.transactions.filter(Self.mayBeSubscription)
        if !timed.isEmpty || !renewals.isEmpty {
            _ = try await subscriptions.apply(
                SubscriptionApplyRequest(source: request.source, transactions: timed, renewals: renewals),
                appID: appID, requestID: requestID)
        }
        guard !request.transactions.isEmpty || request.appUserID != nil else {
            return CustomerAnswer(ApplyOutcomes(outcomes: []), customerJSON: nil)
        }
        return try await entitlements.apply(request, appID: appID, requestID: requestID)
    }

    /// Publishes app-level facts (consent rescinded, external purchase tokens) as entitlements events; each once per
    /// key, so publishing again after a failure is safe.
    func publish(_ events: [AppEvent], appID: String, requestID: String?) async throws {
        guard !events.isEmpty else { return }
        _ = try await entitlements.publish(AppEventsRequest(events: events), appID: appID, requestID: requestID)
    }

    /// Whether a transaction may belong to an auto-renewable subscription (the subscriptions service checks the
    /// catalog): it has an end, and the store did not call it something else.
    static func mayBeSubscription(_ transaction: StoreTransaction) -> Bool {
        guard transaction.expiresDate != nil else { return false }
        return transaction.type == nil || transaction.type == .autoRenewable
    }
}
