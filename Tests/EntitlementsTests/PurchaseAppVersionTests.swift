import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("The app version a purchase came from")
struct PurchaseAppVersionTests {
    @Test("A purchase keeps the app version it was first presented from")
    func firstPresentationsVersionIsKept() async throws {
        try await EntitlementsHarness.run { harness in
            let garden = EntitlementsFixtures.transaction(product: "garden")
            for version in ["2.4.0", "3.0 (812)"] {
                let request = ApplyRequest(
                    appUserID: "user-1", deviceID: "phone", source: .purchase, transactions: [garden],
                    appVersion: version)
                let answer = try await harness.send(.post, "/internal/v1/apply", json: try TestJSON.encode(request))
                #expect(answer.status == .ok)
            }
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.purchases WHERE app_id = \(harness.appID)
                    AND original_transaction_id = \(garden.originalTransactionID) AND app_version = '2.4.0'
                    """) == 1)
            // Without one (store news, an older verifier) nothing is kept.
            let seeds = EntitlementsFixtures.transaction(product: "seeds")
            _ = try await harness.applied([seeds])
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.purchases WHERE app_id = \(harness.appID)
                    AND original_transaction_id = \(seeds.originalTransactionID) AND app_version IS NULL
                    """) == 1)
        }
    }
}
