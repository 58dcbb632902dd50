import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Offerings through the gateway with the app's keys: the secret key writes them, the public key reads them, and a
/// rule on customer facts sees what the other services know (a trial started through the gateway).
@Suite struct OfferingGatewayTests {
    @Test func aCustomerWhoUsedTheTrialGetsTheWinBackOffering() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Offerings")
            let club = Product(
                productID: "club", type: .autoRenewable, storeProductIDs: [.appStore: "com.test.club"],
                duration: ISODuration("P1M"), trialDuration: ISODuration("P7D"),
                localizations: ["en": .init(name: "Club")],
                group: "club")
            #expect(try await gateway.importCatalog([club, product("year")], for: app).status == .ok)
            let paywall = Paywall(layout: "hero", defaultLocale: "en", localizations: ["en": .init(title: "Join")])
            let document = OfferingsDocument(
                offerings: [
                    Offering(
                        offeringID: "standard", isDefault: true,
                        packages: [OfferingPackage(packageID: "$monthly", productID: "club")], paywall: paywall),
                    Offering(
                        offeringID: "winback", packages: [OfferingPackage(packageID: "$annual", productID: "year")]),
                ],
                rules: [TargetingRule(ruleID: "trial_over", offeringID: "winback", customer: .init(trialUsed: true))])
            let written = try await gateway.send(
                .put, "/v1/admin/offerings", bearer: app.secretKey.key, json: try TestJSON.encode(document))
            #expect(written.status == .ok)
            #expect(try written.violations(.put, "/v1/admin/offerings") == [])
            // The public key may not write them.
            let refused = try await gateway.send(
                .put, "/v1/admin/offerings", bearer: app.publicKey.key, json: try TestJSON.encode(document))
            #expect(refused.status == .forbidden)

            let trial = try await gateway.send(
                .post, "/v1/customers/alice/trial", bearer: app.publicKey.key,
                json: try TestJSON.encode(TrialStartRequest(deviceID: "device-1")))
            #expect(trial.status.code / 100 == 2, "\(trial.text)")

            let path = "/v1/offerings?app_user_id=alice&platform=app_store&app_version=1.0"
            let alice = try await gateway.send(.get, path, bearer: app.publicKey.key)
            #expect(alice.status == .ok, "\(alice.text)")
            #expect(try alice.violations(.get, "/v1/offerings") == [])
            let aliceView = try alice.decode(OfferingsView.self)
            #expect(aliceView.currentOfferingID == "winback" && aliceView.ruleID == "trial_over")
            #expect(alice.headers[HTTPField.Name("x-shopkeeper-cache-ttl-ms")!] == nil)

            // Asked right after alice with the same query: the rule read alice's facts, so the gateway kept nothing
            // for bob to be served.
            let bob = try await gateway.send(
                .get, "/v1/offerings?app_user_id=bob&platform=app_store&app_version=1.0", bearer: app.publicKey.key)
            let bobView = try bob.decode(OfferingsView.self)
            #expect(bobView.currentOfferingID == "standard" && bobView.ruleID == nil)
            let standard = try #require(bobView.offerings.first { $0.offeringID == "standard" })
            #expect(standard.packages.map(\.product.storeProductID) == ["com.test.club"])
            #expect(standard.paywall?.title == "Join")

            let etag = try #require(bob.headers[.eTag])
            let notModified = try await gateway.send(
                .get, "/v1/offerings?app_user_id=bob&platform=app_store&app_version=1.0", bearer: app.publicKey.key,
                headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)

            let bad = try await gateway.send(.get, "/v1/offerings?platform=app_store", bearer: app.publicKey.key)
            #expect(bad.status == .badRequest)
            #expect(bad.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            #expect(try bad.violations(.get, "/v1/offerings") == [])
        }
    }
}
