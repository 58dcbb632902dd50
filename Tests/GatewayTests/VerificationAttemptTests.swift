import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

/// `GET /v1/admin/verification-attempts`: support can see every proof a customer sent, refused ones with why.
@Suite struct VerificationAttemptTests {
    static let path = "/v1/admin/verification-attempts"

    @Test func aRefusedProofIsListedWithItsCode() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let sk = world.app.secretKey.key
            // A transaction signed by a chain the verifier does not trust, then a real one.
            let stranger = try SigningChain.generate(
                SigningChain.Options(name: "Forger", notValidBefore: Date(timeIntervalSinceNow: -86_400)))
            let now = Date()
            let forged = try ES256Signer(chain: stranger).sign(
                AppleTransactionPayload(
                    transactionId: "2000forged", originalTransactionId: "2000forged",
                    bundleId: SignedPurchaseWorld.bundleID, productId: "com.example.boundary.pro",
                    purchaseDate: now.appleMilliseconds, quantity: 1, type: "Non-Consumable",
                    inAppOwnershipType: "PURCHASED", signedDate: now.appleMilliseconds, environment: "Sandbox"))
            let refused = try await world.purchase("erin", jws: forged, bearer: pk, token: nil)
            #expect(refused.status.code >= 400 && refused.status.code < 500)
            let code = try #require(refused.problemCode)
            #expect(
                try await world.purchase("erin", jws: try world.signedTransaction(), bearer: pk, token: nil).status
                    == .ok)
            _ = try await world.purchase("frank", jws: try world.signedTransaction(), bearer: pk, token: nil)

            let listed = try await world.send(.get, "\(Self.path)?app_user_id=erin", bearer: sk, token: nil)
            #expect(listed.status == .ok, "\(listed.text)")
            #expect(try listed.violations(.get, Self.path) == [])
            let erins = try listed.decode(VerificationAttemptPage.self).attempts
            #expect(erins.map(\.outcome) == ["verified", "invalid"])
            #expect(erins.last?.code == code)
            #expect(erins.allSatisfy { $0.appUserID == "erin" && $0.requestID != nil })

            // Filters: the refusals only, by outcome and by code.
            let invalid = try await world.send(.get, "\(Self.path)?outcome=invalid", bearer: sk, token: nil)
            #expect(try invalid.decode(VerificationAttemptPage.self).attempts.map(\.appUserID) == ["erin"])
            let byCode = try await world.send(.get, "\(Self.path)?code=\(code)", bearer: sk, token: nil)
            #expect(try byCode.decode(VerificationAttemptPage.self).attempts.count == 1)
            let future = try await world.send(.get, "\(Self.path)?from=2100-01-01T00:00:00Z", bearer: sk, token: nil)
            #expect(try future.decode(VerificationAttemptPage.self).attempts.isEmpty)

            // Pages of one, newest first, until there is no next page.
            var seen: [String] = []
            var query = "?limit=1"
            while true {
                let page = try await world.send(.get, Self.path + query, bearer: sk, token: nil)
                let decoded = try page.decode(VerificationAttemptPage.self)
                seen += decoded.attempts.map(\.id)
                guard let next = decoded.nextBefore else { break }
                query = "?limit=1&before=\(next)"
            }
            #expect(seen.count == 3)
            #expect(seen == seen.sorted { Int($0) ?? 0 > Int($1) ?? 0 })

            // Only the secret key reads the audit, and a bad query names every problem.
            #expect(try await world.send(.get, Self.path, bearer: pk, token: nil).status == .forbidden)
            let bad = try await world.send(
                .get, "\(Self.path)?limit=0&outcome=maybe&from=yesterday&before=x", bearer: sk, token: nil)
            #expect(bad.status == .badRequest)
            #expect(bad.problemCode == "invalid_query")
            #expect(try bad.violations(.get, Self.path) == [])
            let pointers = (try TestJSON.object(bad.body.readableBytesView)["errors"] as? [[String: Any]] ?? [])
                .compactMap { $0["pointer"] as? String }
            #expect(Set(pointers) == ["?limit", "?outcome", "?from", "?before"])
        }
    }
}
