import Foundation
import HummingbirdTesting
import ShopkeeperStores
import Testing
import _CryptoExtras

@testable import SandboxStore

/// Google's token endpoint and the Play Developer API.
@Suite struct GooglePlayTests {
    static let products = "/google/androidpublisher/v3/applications/com.example.garden/purchases/products"

    @Test func aServiceAccountKeyFileHasGooglesFormat() async throws {
        try await SandboxHarness.run { sandbox in
            let response = try await sandbox.send(
                .post, "/sandbox/google/service-accounts", json: ["package_name": "com.example.garden"])
            let raw = try sandbox.object(response)
            #expect(raw["type"] as? String == "service_account")
            for field in ["project_id", "private_key_id", "private_key", "client_email", "client_id", "token_uri"] {
                #expect((raw[field] as? String)?.isEmpty == false, "\(field)")
            }
            let key = try sandbox.decode(GoogleServiceAccountKey.self, response)
            #expect(key.privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            #expect(key.privateKey.hasSuffix("-----END PRIVATE KEY-----\n"))
            #expect(try _RSA.Signing.PrivateKey(pemRepresentation: key.privateKey).keySizeInBits == 2048)
            #expect(key.clientEmail.hasSuffix("@\(key.projectId).iam.gserviceaccount.com"))
            #expect(key.tokenUri.hasSuffix("/google/token") && key.privateKeyId.count == 40)
        }
    }

    @Test func theTokenEndpointAcceptsOnlyACorrectlySignedAssertion() async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.serviceAccount()
            let good = try await sandbox.tokenRequest(
                assertion: try RS256Signer(serviceAccount: key).sign(GoogleServiceAccountClaims(key: key)))
            #expect(good.status == .ok)
            let token = try sandbox.decode(GoogleTokenResponse.self, good)
            #expect(token.expiresIn == 3599 && token.tokenType == "Bearer" && token.accessToken.hasPrefix("ya29."))

            let stranger = try RS256Signer(
                key: try _RSA.Signing.PrivateKey(keySize: .bits2048), keyID: key.privateKeyId)
            let forged = try await sandbox.tokenRequest(
                assertion: try stranger.sign(GoogleServiceAccountClaims(key: key)))
            #expect(forged.status == .badRequest)
            #expect(
                try sandbox.decode(GoogleOAuthErrorResponse.self, forged)
                    == GoogleOAuthErrorResponse(error: "invalid_grant", errorDescription: "Invalid JWT Signature."))

            let signer = try RS256Signer(serviceAccount: key)
            var wrongAudience = GoogleServiceAccountClaims(key: key)
            wrongAudience.aud = "https://oauth2.googleapis.com/token"
            var tooLong = GoogleServiceAccountClaims(key: key)
            tooLong.exp = tooLong.iat + 3601
            var noScope = GoogleServiceAccountClaims(key: key)
            noScope.scope = "https://www.googleapis.com/auth/cloud-platform"
            for (claims, error) in [
                (wrongAudience, "invalid_grant"), (tooLong, "invalid_grant"), (noScope, "invalid_scope"),
            ] {
                let refused = try await sandbox.tokenRequest(assertion: try signer.sign(claims))
                #expect(refused.status == .badRequest)
                #expect(try sandbox.decode(GoogleOAuthErrorResponse.self, refused).error == error)
            }
            let wrongGrant = try await sandbox.tokenRequest(
                assertion: try signer.sign(GoogleServiceAccountClaims(key: key)), grantType: "client_credentials")
            #expect(try sandbox.decode(GoogleOAuthErrorResponse.self, wrongGrant).error == "unsupported_grant_type")
        }
    }

    @Test func theAPIWantsAnAccessTokenForThePackage() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyGoogle()
            let path = "\(Self.products)/fertilizer/tokens/\(bought.purchaseToken)"
            let missing = try await sandbox.send(.get, path)
            #expect(missing.status == .unauthorized)
            let body = try sandbox.decode(GoogleErrorResponse.self, missing)
            #expect(body.error.code == 401 && body.error.status == "UNAUTHENTICATED")
            #expect(try await sandbox.send(.get, path, bearer: "ya29.unknown").status == .unauthorized)
            let otherApp = try await sandbox.send(
                .get, path, bearer: try await sandbox.googleAccessToken(packageName: "com.other.app"))
            #expect(otherApp.status == .unauthorized)
            #expect(try sandbox.decode(GoogleErrorResponse.self, otherApp).error.status == "PERMISSION_DENIED")
            #expect(try await sandbox.send(.get, path, bearer: try await sandbox.googleAccessToken()).status == .ok)
        }
    }

    @Test func aPendingPurchaseBecomesPurchasedAndUnknownTokensAreInvalid() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try await sandbox.googleAccessToken()
            let bought = try await sandbox.buyGoogle([
                "pending": true, "quantity": 2, "obfuscated_account_id": "user-42",
            ])
            let path = "\(Self.products)/fertilizer/tokens/\(bought.purchaseToken)"
            let pending = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(pending.purchaseState == 2 && pending.quantity == 2 && pending.purchaseType == 0)
            #expect(
                pending.kind == "androidpublisher#productPurchase" && pending.obfuscatedExternalAccountId == "user-42")
            #expect(pending.orderId == bought.orderId && pending.purchaseToken == bought.purchaseToken)
            #expect(pending.acknowledgementState == 0 && pending.consumptionState == 0 && pending.regionCode == "US")
            #expect(Int64(pending.purchaseTimeMillis ?? "") != nil)
            let early = try await sandbox.send(.post, path + ":acknowledge", bearer: bearer)
            #expect(early.status == .badRequest)
            #expect(
                try sandbox.decode(GoogleErrorResponse.self, early).error.errors?.first?.reason
                    == "invalidPurchaseState")

            let complete = try await sandbox.send(.post, "/sandbox/google/purchases/\(bought.purchaseToken)/complete")
            #expect(complete.status == .ok)
            let purchased = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(purchased.purchaseState == 0)

            let unknown = try await sandbox.send(.get, "\(Self.products)/fertilizer/tokens/nosuchtoken", bearer: bearer)
            #expect(unknown.status == .badRequest)
            #expect(try sandbox.decode(GoogleErrorResponse.self, unknown).error.status == "INVALID_ARGUMENT")
            let wrongProduct = try await sandbox.send(
                .get, "\(Self.products)/seeds/tokens/\(bought.purchaseToken)", bearer: bearer)
            #expect(wrongProduct.status == .badRequest)
            let real = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(real.purchaseType == 0)
            let paid = try await sandbox.buyGoogle(["test": false])
            let notTest = try sandbox.object(
                try await sandbox.send(.get, "\(Self.products)/fertilizer/tokens/\(paid.purchaseToken)", bearer: bearer)
            )
            #expect(notTest["purchaseType"] == nil && notTest["purchaseState"] as? Int == 0)
        }
    }

    @Test func acknowledgeAndConsumeChangeTheState() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try await sandbox.googleAccessToken()
            let bought = try await sandbox.buyGoogle()
            let path = "\(Self.products)/fertilizer/tokens/\(bought.purchaseToken)"
            func state() async throws -> GoogleProductPurchase {
                try sandbox.decode(GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            }
            let acknowledge = try await sandbox.send(.post, path + ":acknowledge", bearer: bearer)
            #expect(acknowledge.status == .ok && acknowledge.body.readableBytes == 0)
            var purchase = try await state()
            #expect(purchase.acknowledgementState == 1 && purchase.consumptionState == 0)
            #expect(try await sandbox.send(.post, path + ":consume", bearer: bearer).status == .ok)
            purchase = try await state()
            #expect(purchase.consumptionState == 1 && purchase.purchaseState == 0)

            let other = try await sandbox.buyGoogle()
            let otherPath = "\(Self.products)/fertilizer/tokens/\(other.purchaseToken)"
            #expect(try await sandbox.send(.post, otherPath + ":consume", bearer: bearer).status == .ok)
            let consumed = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, otherPath, bearer: bearer))
            #expect(consumed.consumptionState == 1 && consumed.acknowledgementState == 1)
        }
    }

    @Test func aRefundCancelsThePurchaseAndListsItAsVoided() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try await sandbox.googleAccessToken()
            let product = try await sandbox.buyGoogle()
            let subscription = try await sandbox.buyGoogle([
                "product_id": "garden.monthly", "type": "subscription", "period": "P1M",
                "obfuscated_account_id": "user-7",
            ])
            let subscriptionPath =
                "/google/androidpublisher/v3/applications/com.example.garden/purchases/subscriptionsv2/tokens/"
                + subscription.purchaseToken
            let active = try sandbox.decode(
                GoogleSubscriptionPurchaseV2.self, try await sandbox.send(.get, subscriptionPath, bearer: bearer))
            #expect(active.subscriptionState == "SUBSCRIPTION_STATE_ACTIVE" && active.testPurchase != nil)
            #expect(active.acknowledgementState == "ACKNOWLEDGEMENT_STATE_PENDING")
            #expect(active.lineItems?.first?.productId == "garden.monthly")
            #expect(active.lineItems?.first?.autoRenewingPlan?.autoRenewEnabled == true)
            #expect(active.externalAccountIdentifiers?.obfuscatedExternalAccountId == "user-7")
            let acknowledge = try await sandbox.send(
                .post,
                "/google/androidpublisher/v3/applications/com.example.garden/purchases/subscriptions/garden.monthly/tokens/"
                    + subscription.purchaseToken + ":acknowledge", bearer: bearer)
            #expect(acknowledge.status == .ok)

            let voidedPath = "/google/androidpublisher/v3/applications/com.example.garden/purchases/voidedpurchases"
            let none = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self, try await sandbox.send(.get, voidedPath, bearer: bearer))
            #expect(none.voidedPurchases == nil)

            for token in [product.purchaseToken, subscription.purchaseToken] {
                let refund = try await sandbox.send(
                    .post, "/sandbox/google/purchases/\(token)/refund", json: ["voided_reason": 1])
                #expect(refund.status == .ok)
            }
            let cancelled = try sandbox.decode(
                GoogleProductPurchase.self,
                try await sandbox.send(
                    .get, "\(Self.products)/fertilizer/tokens/\(product.purchaseToken)", bearer: bearer))
            #expect(cancelled.purchaseState == 1)
            let ended = try sandbox.decode(
                GoogleSubscriptionPurchaseV2.self, try await sandbox.send(.get, subscriptionPath, bearer: bearer))
            #expect(ended.subscriptionState == "SUBSCRIPTION_STATE_EXPIRED")
            #expect(ended.acknowledgementState == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")

            let productsOnly = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self, try await sandbox.send(.get, voidedPath, bearer: bearer))
            let voided = try #require(productsOnly.voidedPurchases)
            #expect(voided.map(\.purchaseToken) == [product.purchaseToken])
            #expect(voided.first?.orderId == product.orderId && voided.first?.voidedReason == 1)
            #expect(voided.first?.voidedSource == 0 && voided.first?.kind == "androidpublisher#voidedPurchase")
            let all = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await sandbox.send(.get, voidedPath + "?type=1", bearer: bearer))
            #expect(all.voidedPurchases?.count == 2)
            let later = try sandbox.decode(
                GoogleVoidedPurchasesListResponse.self,
                try await sandbox.send(
                    .get, voidedPath + "?type=1&startTime=\(Date().appleMilliseconds + 60_000)", bearer: bearer))
            #expect(later.voidedPurchases == nil)
        }
    }

    /// Over real HTTP: the key file's `token_uri` is this server (from `Host`), and a client that follows it works.
    @Test func theWholeGoogleFlowOverLoopback() async throws {
        try await SandboxHarness.run(mode: .ahc(.http)) { sandbox in
            let port = try #require(sandbox.client.port)
            let key = try await sandbox.serviceAccount()
            #expect(
                key.tokenUri == "http://127.0.0.1:\(port)/google/token"
                    || key.tokenUri == "http://localhost:\(port)/google/token")
            let bearer = try await sandbox.googleAccessToken()
            let bought = try await sandbox.buyGoogle()
            let path = "\(Self.products)/fertilizer/tokens/\(bought.purchaseToken)"
            #expect(try await sandbox.send(.post, path + ":acknowledge", bearer: bearer).status == .ok)
            let purchase = try sandbox.decode(
                GoogleProductPurchase.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(purchase.acknowledgementState == 1)
        }
    }

    @Test func thePublicURLSettingDecidesTheTokenURI() async throws {
        try await SandboxHarness.run(environment: ["SHOPKEEPER_SANDBOX_PUBLIC_URL": "https://sandbox.example.com/"]) {
            sandbox in
            let key = try await sandbox.serviceAccount()
            #expect(key.tokenUri == "https://sandbox.example.com/google/token")
            let token = try await sandbox.tokenRequest(
                assertion: try RS256Signer(serviceAccount: key).sign(GoogleServiceAccountClaims(key: key)))
            #expect(token.status == .ok)
        }
    }
}
