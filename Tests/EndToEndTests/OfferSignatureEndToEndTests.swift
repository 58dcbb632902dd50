import Foundation
import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

/// Offer signatures made by the verifier with the app's In-App Purchase key, taken to the sandbox store, which checks
/// them as StoreKit does: the classic promotional offer signature, its JWS form, and the introductory offer
/// eligibility JWS; signed only for customers the server deems eligible.
@Suite(.serialized) struct OfferSignatureEndToEndTests {
    static var products: [[String: Any]] {
        [
            [
                "product_id": "pro_monthly", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "group": "pro", "store_product_ids": ["app_store": "pro.monthly", "play_store": "pro_monthly"],
                "localizations": ["en": ["name": "Pro", "description": "Pro"]],
            ],
            [
                "product_id": "coins", "type": "consumable", "consumable_quantity": 10, "entitlements": [],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "store_product_ids": ["app_store": "coins.10"],
                "localizations": ["en": ["name": "Coins", "description": "Coins"]],
            ],
            [
                "product_id": "play_only", "type": "auto_renewable", "entitlements": ["pro"],
                "review_state": "approved", "cleared_for_sale": true, "free": false, "default_locale": "en",
                "group": "pro", "store_product_ids": ["play_store": "play_only"],
                "localizations": ["en": ["name": "Play", "description": "Play"]],
            ],
        ]
    }

    /// The JWS payload's fields (the test trusts the sandbox's own signature here).
    static func payload(_ jws: String) throws -> [String: Any] {
        let segment = try #require(jws.split(separator: ".").dropFirst().first)
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func subscribe(_ world: StoreWorld, _ extra: [String: Any]) async throws -> StoreWorld.Answer {
        var body: [String: Any] = [
            "bundle_id": world.bundleID, "product_id": "pro.monthly", "type": "Auto-Renewable Subscription",
            "period": "P1M",
        ]
        body.merge(extra) { _, new in new }
        return try await world.sandbox(.POST, "/sandbox/apple/transactions", body)
    }

    @Test func promotionalOffersAreSignedForFormerSubscribersOnlyAndStoreKitTakesThem() async throws {
        try await StoreWorld.run { world in
            try await world.importCatalog(Self.products)
            try await world.configureApple(apiKey: true)
            let token = AppAccountToken.uuid(forAppUserID: "ann").uuidString.lowercased()
            let ask: [String: Any] = ["product_id": "pro_monthly", "offer": "promotional", "offer_id": "comeback"]

            // Never subscribed: no promotional offer.
            let early = try await world.verifier(.POST, "/v1/customers/ann/offer-signatures", ask)
            #expect(early.status == 422, "\(early.json)")
            #expect(early.code == "offer_not_eligible")

            // A subscription in the group (with its free trial) makes her a former subscriber.
            let first = try await subscribe(
                world, ["app_account_token": token, "offer_type": 1, "offer_discount_type": "FREE_TRIAL"])
            #expect(first.status == 201, "\(first.json)")
            let presented = try await world.verifier(
                .POST, "/v1/purchases", ["app_user_id": "ann", "signed_transaction": first["signed_transaction"] ?? ""])
            #expect(presented.status == 200, "\(presented.json)")

            let signed = try await world.verifier(.POST, "/v1/customers/ann/offer-signatures", ask)
            #expect(signed.status == 200, "\(signed.json)")
            #expect(signed["store_product_id"] as? String == "pro.monthly")
            #expect(signed["app_account_token"] as? String == token)
            let classic = try #require(signed["signature"] as? [String: Any])
            let jws = try #require(signed["jws"] as? String)
            let claims = try Self.payload(jws)
            #expect(claims["aud"] as? String == "promotional-offer")
            #expect(claims["offerIdentifier"] as? String == "comeback")
            #expect(claims["productId"] as? String == "pro.monthly")
            #expect(claims["transactionId"] as? String == first["transaction_id"] as? String)

            // StoreKit (the sandbox) takes the classic signature for this customer's token...
            let offer: [String: Any] = [
                "offer_id": "comeback", "key_id": classic["key_id"] ?? "", "nonce": classic["nonce"] ?? "",
                "timestamp": classic["timestamp"] ?? 0, "signature": classic["signature"] ?? "",
            ]
            let bought = try await subscribe(world, ["app_account_token": token, "promotional_offer": offer])
            #expect(bought.status == 201, "\(bought.json)")
            let transaction = try Self.payload(try #require(bought["signed_transaction"] as? String))
            #expect(transaction["offerType"] as? Int == 2)
            #expect(transaction["offerIdentifier"] as? String == "comeback")
            // ... and the JWS form.
            let boughtWithJWS = try await subscribe(world, ["app_account_token": token, "promotional_offer_jws": jws])
            #expect(boughtWithJWS.status == 201, "\(boughtWithJWS.json)")
            let second = try Self.payload(try #require(boughtWithJWS["signed_transaction"] as? String))
            #expect(second["offerIdentifier"] as? String == "comeback")

            // The signature binds the offer and the customer: another offer id or another token is refused.
            var otherOffer = offer
            otherOffer["offer_id"] = "bigger_discount"
            let forged = try await subscribe(world, ["app_account_token": token, "promotional_offer": otherOffer])
            #expect(forged.status == 400)
            #expect(forged.code == "invalid_offer_signature")
            let stranger = UUID().uuidString.lowercased()
            let borrowed = try await subscribe(world, ["app_account_token": stranger, "promotional_offer": offer])
            #expect(borrowed.code == "invalid_offer_signature")

            // What cannot be signed.
            let other = try await world.verifier(.POST, "/v1/customers/nobody/offer-signatures", ask)
            #expect(other.code == "offer_not_eligible")
            let consumable = try await world.verifier(
                .POST, "/v1/customers/ann/offer-signatures",
                ["product_id": "coins", "offer": "promotional", "offer_id": "x"])
            #expect(consumable.status == 422)
            #expect(consumable.code == "not_a_subscription")
            let playOnly = try await world.verifier(
                .POST, "/v1/customers/ann/offer-signatures",
                ["product_id": "play_only", "offer": "promotional", "offer_id": "x"])
            #expect(playOnly.code == "not_on_app_store")
            let unknown = try await world.verifier(
                .POST, "/v1/customers/ann/offer-signatures",
                ["product_id": "nope", "offer": "promotional", "offer_id": "x"])
            #expect(unknown.status == 404, "\(unknown.json)")
            let noOfferID = try await world.verifier(
                .POST, "/v1/customers/ann/offer-signatures", ["product_id": "pro_monthly", "offer": "promotional"])
            #expect(noOfferID.status == 422)
            #expect(noOfferID.code == "validation_failed")
            let badKind = try await world.verifier(
                .POST, "/v1/customers/ann/offer-signatures", ["product_id": "pro_monthly", "offer": "winback"])
            #expect(badKind.status == 400 || badKind.status == 422, "\(badKind.json)")

            // Without the In-App Purchase key nothing is signed.
            #expect(try await world.verifier(.DELETE, "/v1/admin/stores/apple", kind: .secret).status == 204)
            try await world.configureApple(apiKey: false)
            let keyless = try await world.verifier(.POST, "/v1/customers/ann/offer-signatures", ask)
            #expect(keyless.status == 422)
            #expect(keyless.code == "api_key_required")
        }
    }

    @Test func introductoryEligibilitySaysWhatShopkeeperKnowsAcrossStores() async throws {
        try await StoreWorld.run { world in
            try await world.importCatalog(Self.products)
            try await world.configureApple(apiKey: true)
            let ask: [String: Any] = ["product_id": "pro_monthly", "offer": "introductory"]

            // A customer with nothing from Apple yet: the JWS needs a transaction of theirs.
            let bare = try await world.verifier(.POST, "/v1/customers/ben/offer-signatures", ask)
            #expect(bare.status == 422, "\(bare.json)")
            #expect(bare.code == "apple_transaction_required")

            // Their app transaction is enough; a new customer may have the introductory offer.
            let app = try await world.sandbox(
                .POST, "/sandbox/apple/app-transactions",
                ["bundle_id": world.bundleID, "app_account_token": UUID().uuidString.lowercased()])
            let appJWS = try #require(app["signed_app_transaction"] as? String, "\(app.json)")
            let presented = try await world.verifier(
                .POST, "/v1/purchases", ["app_user_id": "ben", "signed_app_transaction": appJWS])
            #expect(presented.status == 200, "\(presented.json)")
            let allowed = try await world.verifier(.POST, "/v1/customers/ben/offer-signatures", ask)
            #expect(allowed.status == 200, "\(allowed.json)")
            #expect(allowed["allow_introductory_offer"] as? Bool == true)
            #expect(allowed.json.keys.contains("reason"))
            #expect(allowed["reason"] is NSNull)
            let allowedJWS = try #require(allowed["jws"] as? String)
            let claims = try Self.payload(allowedJWS)
            #expect(claims["aud"] as? String == "introductory-offer-eligibility")
            #expect(claims["allowIntroductoryOffer"] as? Bool == true)
            #expect(claims["transactionId"] as? String == (try Self.payload(appJWS))["appTransactionId"] as? String)
            let trial = try await subscribe(
                world,
                [
                    "offer_type": 1, "offer_discount_type": "FREE_TRIAL",
                    "introductory_offer_eligibility_jws": allowedJWS,
                ])
            #expect(trial.status == 201, "\(trial.json)")
            let ben = AppAccountToken.uuid(forAppUserID: "ben").uuidString.lowercased()
            let withToken = try await subscribe(
                world,
                [
                    "offer_type": 1, "offer_discount_type": "FREE_TRIAL", "app_account_token": ben,
                    "introductory_offer_eligibility_jws": allowedJWS,
                ])
            #expect(
                try await world.verifier(
                    .POST, "/v1/purchases",
                    ["app_user_id": "ben", "signed_transaction": withToken["signed_transaction"] ?? ""]
                ).status == 200)

            // Having used it, the signed eligibility forbids it, and StoreKit refuses the introductory offer.
            let refused = try await world.verifier(.POST, "/v1/customers/ben/offer-signatures", ask)
            #expect(refused.status == 200, "\(refused.json)")
            #expect(refused["allow_introductory_offer"] as? Bool == false)
            #expect(refused["reason"] as? String == "intro_offer_used")
            let refusedJWS = try #require(refused["jws"] as? String)
            let again = try await subscribe(
                world,
                [
                    "offer_type": 1, "offer_discount_type": "FREE_TRIAL",
                    "introductory_offer_eligibility_jws": refusedJWS,
                ])
            #expect(again.status == 400)
            #expect(again.code == "ineligible_for_offer")
            // An introductory eligibility JWS is not a promotional offer.
            let misused = try await subscribe(world, ["promotional_offer_jws": refusedJWS])
            #expect(misused.code == "invalid_offer_signature")
        }
    }
}
