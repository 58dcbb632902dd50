import Foundation
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

extension ConsoleBrowserTests {
    /// Support answers "why was my purchase refused": a forged proof shows on the refused proofs page with its code,
    /// reached from the customer's page.
    @Test func aRefusedProofShowsWithWhyItWasRefused() async throws {
        let world = try self.world
        let customer = "refused-\(UUID().uuidString.prefix(8).lowercased())"
        // Shaped like a StoreKit 2 transaction, signed by nobody the server trusts.
        let forged = "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCIl19.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl"
        let (status, body) = try await world.api(
            .POST, "/v1/purchases", json: ["app_user_id": customer, "signed_transaction": forged], key: world.publicKey)
        #expect((400..<500).contains(status), "\(String(describing: body))")
        let code = try #require((body as? [String: Any])?["code"] as? String)
        try await world.browse("console-refused-proofs") { browser in
            try await world.signIn(browser)
            try await world.go(browser, "/verification?app_user_id=\(customer)")
            let row = try await browser.element("#attempts tbody tr[data-outcome=invalid]", containing: code)
            let text = try await row.text
            #expect(text.contains(customer), "\(text)")
            // Everything of the app, verified ones too.
            try await world.go(browser, "/verification?outcome=all")
            _ = try await browser.element("#attempts tbody tr", containing: code)
        }
    }
}
