import ShopkeeperStores
import Testing

@testable import Verifier

/// The units of a Play purchase refunded so far, as the normalizer records them: `quantity` less Google's
/// `refundableQuantity`, nothing when Google does not say or nothing was refunded.
@Suite struct GoogleRefundedQuantityTests {
    static func purchase(quantity: Int?, refundable: Int?, state: Int = 0) -> GoogleProductPurchase {
        GoogleProductPurchase(
            purchaseTimeMillis: "1764370000000", purchaseState: state, consumptionState: 0, orderId: "GPA.1",
            purchaseType: nil, acknowledgementState: 1, purchaseToken: "token", productId: "gem_1",
            quantity: quantity, refundableQuantity: refundable)
    }

    @Test(
        arguments: [
            (5, 5, nil), (5, 3, 2), (5, 0, 5), (5, nil, nil), (nil, 1, nil), (1, 0, 1), (5, -1, nil), (5, 7, nil),
        ] as [(Int?, Int?, Int?)])
    func refundedUnits(quantity: Int?, refundable: Int?, refunded: Int?) throws {
        let transaction = try GoogleTransactionNormalizer.normalize(
            Self.purchase(quantity: quantity, refundable: refundable), productID: "gem_1", token: "token")
        #expect(transaction.refundedQuantity == refunded)
        // A partial refund takes nothing back whole: the purchase is revoked only when Google cancels it.
        #expect(transaction.revocationDate == nil)
    }

    @Test func aCancelledPurchaseIsRevokedWithAllItsUnitsRefunded() throws {
        let transaction = try GoogleTransactionNormalizer.normalize(
            Self.purchase(quantity: 5, refundable: 0, state: 1), productID: "gem_1", token: "token")
        #expect(transaction.refundedQuantity == 5 && transaction.revocationDate != nil)
    }
}
