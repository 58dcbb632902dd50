import Foundation
import Testing

@testable import ShopkeeperKit

/// Redeeming a web purchase's code in the app, against the real local stack.
@Suite(.enabled(if: Stack.available)) struct RedemptionStackTests {
    @Test func aCodeIsRedeemedThroughTheGatewayAndItsRefusalsHaveTheirCodes() async throws {
        let stack = try Stack.require()
        // A web visitor's anonymous id, and a code for it (issued as the web shop does, with the public key).
        let visitor = "anon_\(UUID().uuidString.lowercased())"
        let issued = try await stack.call(
            "POST", stack.gatewayURL.appendingPathComponent("v1/customers/\(visitor)/redemption-codes"),
            bearer: stack.publicKey)
        #expect(issued.status == 201, "\(String(decoding: issued.body, as: UTF8.self))")
        let code = try #require(
            (try JSONSerialization.jsonObject(with: issued.body) as? [String: Any])?["code"] as? String)

        let device = try stack.device()
        // The visitor bought nothing yet: the code stays valid and says so; a code nobody issued is not found.
        for (attempt, expected) in [
            (code, "nothing_to_redeem"), ("AAAAA-AAAAA-AAAAA-AAAAA", "redemption_code_not_found"),
        ] {
            do throws(ShopkeeperError) {
                _ = try await device.shopkeeper.redeem(code: attempt)
                Issue.record("no refusal, expected \(expected)")
            } catch {
                #expect(error.code == expected, "\(error)")
            }
        }
    }
}
