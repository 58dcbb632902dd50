import Crypto
import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The sandbox's App Store Connect API: Apple's JWT rule for it (no bundle id, at most 20 minutes), its JSON:API
/// documents over the products the sandbox sells, and the review state set through `PUT /sandbox/apple/products`.
@Suite struct AppStoreConnectAPITests {
    static func token(
        _ key: AppleAPIKeyCreated, issuedAt: Date = Date(), lifetime: Int64 = 1200,
        audience: String = "appstoreconnect-v1",
        signingKey: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let privateKey = try signingKey ?? P256.Signing.PrivateKey(pemRepresentation: key.privateKey)
        let signer = try ES256Signer(key: privateKey, header: JWSHeader(alg: "ES256", kid: key.keyId, typ: "JWT"))
        return try signer.sign(AppStoreConnectClaims(iss: key.issuerId, iat: iat, exp: iat + lifetime, aud: audience))
    }

    @Test(arguments: ["lifetime over 20 minutes", "expired", "wrong audience", "wrong signature", "no token"])
    func badTokensGetAppStoreConnects401(_ fault: String) async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.appleKey()
            let token: String? =
                switch fault {
                case "lifetime over 20 minutes": try Self.token(key, lifetime: 1201)
                case "expired": try Self.token(key, issuedAt: Date(timeIntervalSinceNow: -1300))
                case "wrong audience": try Self.token(key, audience: "appstoreconnect-v2")
                case "wrong signature": try Self.token(key, signingKey: P256.Signing.PrivateKey())
                default: nil
                }
            let refused = try await sandbox.send(.get, "/appstoreconnect/v1/apps", bearer: token)
            #expect(refused.status == .unauthorized)
            let errors = try sandbox.decode(AppStoreConnectErrors.self, refused)
            #expect(errors.errors.first?.code == "NOT_AUTHORIZED")
            let good = try await sandbox.send(.get, "/appstoreconnect/v1/apps", bearer: try Self.token(key))
            #expect(good.status == .ok)
        }
    }

    @Test func theAppsInAppPurchasesCarryTheirReviewStateAndPricesPerTerritory() async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.appleKey()
            let put = try await sandbox.send(
                .put, "/sandbox/apple/products",
                json: [
                    "products": [
                        [
                            "product_id": "com.example.garden.extra", "type": "Non-Consumable", "display_name": "Extra",
                            "review_state": "DEVELOPER_ACTION_NEEDED",
                            "prices": [
                                ["storefront": "USA", "currency": "USD", "price": 1990],
                                ["storefront": "DEU", "currency": "EUR", "price": 2290],
                            ],
                        ]
                    ]
                ])
            #expect(put.status == .ok)
            let bearer = try Self.token(key)
            let apps = try sandbox.decode(
                AppStoreConnectDocument<AppStoreConnectAppAttributes>.self,
                try await sandbox.send(
                    .get, "/appstoreconnect/v1/apps?filter%5BbundleId%5D=com.example.garden", bearer: bearer))
            let app = try #require(apps.data.first)
            #expect(app.attributes?.bundleId == "com.example.garden")
            let purchases = try sandbox.decode(
                AppStoreConnectDocument<AppStoreConnectInAppPurchaseAttributes>.self,
                try await sandbox.send(.get, "/appstoreconnect/v1/apps/\(app.id)/inAppPurchasesV2", bearer: bearer))
            let purchase = try #require(purchases.data.first)
            #expect(purchase.type == "inAppPurchases")
            #expect(purchase.attributes?.state == "DEVELOPER_ACTION_NEEDED")
            #expect(purchase.attributes?.inAppPurchaseType == "NON_CONSUMABLE")
            let prices = try sandbox.decode(
                AppStoreConnectDocument<AppStoreConnectPriceAttributes>.self,
                try await sandbox.send(
                    .get,
                    "/appstoreconnect/v1/inAppPurchasePriceSchedules/\(purchase.id)/manualPrices"
                        + "?include=inAppPurchasePricePoint,territory",
                    bearer: bearer))
            #expect(prices.data.count == 2)
            let territories = Set((prices.included ?? []).filter { $0.type == "territories" }.map(\.id))
            #expect(territories == ["USA", "DEU"])
            #expect((prices.included ?? []).contains { $0.attributes?.customerPrice == "2.29" })
            // Another team's app is not the caller's.
            let stranger = try await sandbox.send(
                .get, "/appstoreconnect/v1/apps/1000000001/inAppPurchasesV2", bearer: bearer)
            #expect(stranger.status == .notFound)
        }
    }
}
