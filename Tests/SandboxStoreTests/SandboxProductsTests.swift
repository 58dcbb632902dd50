import Foundation
import HummingbirdTesting
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// `/sandbox/apple/products`: the products and their prices per storefront, answered as StoreKit shows them there,
/// used by purchases that name no price, and kept across a restart.
@Suite struct SandboxProductsTests {
    static var catalog: [String: Any] {
        [
            "products": [
                [
                    "product_id": "garden.extra", "type": "Non-Consumable", "display_name": "Extra garden",
                    "prices": [
                        ["storefront": "USA", "currency": "USD", "price": 1990],
                        ["storefront": "DEU", "currency": "EUR", "price": 2290],
                        ["storefront": "JPN", "currency": "JPY", "price": 300_000],
                    ],
                ],
                [
                    "product_id": "garden.pass", "type": "Auto-Renewable Subscription", "display_name": "Garden pass",
                    "subscription_period": "P1M",
                    "introductory_offer": ["type": "FREE_TRIAL", "period": "P1W", "price": 0],
                    "prices": [["storefront": "USA", "currency": "USD", "price": 4990]],
                ],
            ]
        ]
    }

    static func products(_ response: TestResponse) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
        return object?["products"] as? [[String: Any]] ?? []
    }

    @Test func pricesAreShownAsEachStorefrontWritesThem() async throws {
        let directory = SandboxHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let put = try await sandbox.send(.put, "/sandbox/apple/products", json: Self.catalog)
            #expect(put.status == .ok, "\(String(buffer: put.body))")

            let usa = try Self.products(
                try await sandbox.send(.get, "/sandbox/apple/products?ids=garden.extra,garden.pass,unknown"))
            #expect(usa.map { $0["product_id"] as? String } == ["garden.extra", "garden.pass"])
            #expect(usa.first?["display_price"] as? String == "$1.99")
            #expect(usa.first?["currency"] as? String == "USD")
            #expect(usa.last?["subscription_period"] as? String == "P1M")
            #expect((usa.last?["introductory_offer"] as? [String: Any])?["type"] as? String == "FREE_TRIAL")

            // Germany writes euros its own way; Japan has yen without decimals; the pass is not sold in Germany.
            let germany = try Self.products(
                try await sandbox.send(.get, "/sandbox/apple/products?ids=garden.extra,garden.pass&storefront=DEU"))
            #expect(germany.count == 1)
            #expect(germany.first?["display_price"] as? String == "2,29\u{A0}€")
            let japan = try Self.products(
                try await sandbox.send(.get, "/sandbox/apple/products?ids=garden.extra&storefront=JPN"))
            let yen = japan.first?["display_price"] as? String
            #expect(yen == "\u{A5}300" || yen == "\u{FFE5}300", "\(String(describing: yen))")

            // A purchase that names no price is made at its storefront's, as the signed transaction shows.
            let bought = try await sandbox.buyApple([
                "product_id": "garden.extra", "type": "Non-Consumable", "storefront": "DEU",
            ])
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let payload = try await verifier.verify(bought.signedTransaction, as: AppleTransactionPayload.self)
            #expect(payload.price == 2290 && payload.currency == "EUR" && payload.storefront == "DEU")

            // Refused: an unknown type, a bad storefront, a negative price, a storefront twice; nothing changes.
            let bad = try await sandbox.send(
                .put, "/sandbox/apple/products",
                json: [
                    "products": [
                        [
                            "product_id": "x", "type": "Lifetime", "display_name": "X",
                            "prices": [
                                ["storefront": "usa", "currency": "USD", "price": -1],
                                ["storefront": "DEU", "currency": "EUR", "price": 1],
                                ["storefront": "DEU", "currency": "EUR", "price": 2],
                            ],
                        ]
                    ]
                ])
            #expect(bad.status == .unprocessableContent)
            #expect(
                try Self.products(try await sandbox.send(.get, "/sandbox/apple/products?ids=garden.extra")).count == 1)
            let query = try await sandbox.send(.get, "/sandbox/apple/products?storefront=usa")
            #expect(query.status == .badRequest)
        }
        // A restart on the same state keeps the products.
        try await SandboxHarness.run(stateDirectory: directory) { sandbox in
            let again = try Self.products(
                try await sandbox.send(.get, "/sandbox/apple/products?ids=garden.extra&storefront=DEU"))
            #expect(again.first?["display_price"] as? String == "2,29\u{A0}€")
        }
    }
}
