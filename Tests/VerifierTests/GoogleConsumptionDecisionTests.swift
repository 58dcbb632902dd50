import Testing

@testable import Verifier

/// When a queued Play consume is done: only once entitlements has durably granted the purchase as a consumable.
@Suite struct GoogleConsumptionDecisionTests {
    struct Grant: Sendable, CustomTestStringConvertible {
        var name: String
        var type: String?
        var revoked: Bool
        var applied: Bool
        var decision: ConsumptionDecision
        var testDescription: String { name }
    }

    static let grants: [Grant] = [
        Grant(
            name: "a granted consumable is consumed", type: "consumable", revoked: false, applied: true,
            decision: .consume),
        Grant(name: "not granted to anyone yet: wait", type: nil, revoked: false, applied: false, decision: .wait),
        Grant(
            name: "a purchase row but this transaction not applied: wait", type: "consumable", revoked: false,
            applied: false, decision: .wait),
        Grant(
            name: "a product the catalog does not know yet: wait", type: "unknown", revoked: false, applied: true,
            decision: .wait),
        Grant(
            name: "a non-consumable is never consumed", type: "non_consumable", revoked: false, applied: true,
            decision: .skip("not a consumable: non_consumable")),
        Grant(
            name: "a refunded purchase is never consumed", type: "consumable", revoked: true, applied: true,
            decision: .skip("refunded or revoked")),
    ]

    @Test(arguments: grants) func consumeDecision(_ grant: Grant) {
        let pending = PendingConsumption(
            appID: "app", transactionID: "GPA.1", storeProductID: "fertilizer_10", purchaseToken: "token",
            productType: grant.type, revoked: grant.revoked, applied: grant.applied)
        #expect(pending.decision == grant.decision)
    }
}
