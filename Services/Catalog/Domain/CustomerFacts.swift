/// What the server knows about a customer that targeting rules may ask: read from entitlements' and
/// subscriptions' published views (``CustomerFactsPostgresReader``), only when a rule needs them.
struct CustomerFacts: Sendable, Hashable {
    /// Never bought anything nor started a trial (also an id no customer has).
    var isNew: Bool
    /// Subscription groups the customer has or had a subscription in.
    var groupsEver: Set<String>
    /// Groups where one of them grants access now.
    var groupsActive: Set<String>
    /// Started the app's trial, or had a store trial or introductory offer period.
    var trialUsed: Bool

    /// The facts of an id no customer has.
    static let unknown = CustomerFacts(isNew: true, groupsEver: [], groupsActive: [], trialUsed: false)
}
