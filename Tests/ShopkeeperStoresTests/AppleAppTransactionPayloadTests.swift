import Foundation
import ShopkeeperStores
import Testing

@Suite struct AppleAppTransactionPayloadTests {
    @Test func decodesApplesFieldsAndVerifiesAtTheReceiptCreationDate() async throws {
        let chain = try SigningChain.generate(
            SigningChain.Options(notValidBefore: Date(timeIntervalSinceNow: -30 * 86_400)))
        let verifier = try AppleSignedDataVerifier(trustedRoots: [chain.root])
        let created = Date().appleMilliseconds
        // The JSON as Apple writes it: no `signedDate`, `receiptType` for the environment.
        let json = """
            {"receiptType":"Sandbox","appAppleId":1234,"bundleId":"com.example.app","applicationVersion":"7",
            "versionExternalIdentifier":0,"receiptCreationDate":\(created),"originalPurchaseDate":1700000000000,
            "originalApplicationVersion":"1","deviceVerification":"dmVyaWZ5",
            "deviceVerificationNonce":"0c39f1b8-6e5f-4c1f-bb5e-2b1c8a2b9f00","appTransactionId":"704189130119823345",
            "originalPlatform":"iOS"}
            """
        let payload = try JSONDecoder().decode(AppleAppTransactionPayload.self, from: Data(json.utf8))
        #expect(payload.signedDate == created)
        #expect(payload.environment == AppleEnvironment.sandbox.rawValue)
        #expect(payload.typedOriginalPlatform == .iOS)
        #expect(payload.appTransactionId == "704189130119823345")

        let token = try ES256Signer(chain: chain).sign(payload)
        let verified = try await verifier.verify(token, as: AppleAppTransactionPayload.self)
        #expect(verified == payload)
    }

    @Test func anAppTransactionWithoutACreationDateIsCheckedAtTheCurrentTime() async throws {
        let chain = try SigningChain.generate(
            SigningChain.Options(notValidBefore: Date(timeIntervalSinceNow: -30 * 86_400)))
        let verifier = try AppleSignedDataVerifier(trustedRoots: [chain.root])
        let token = try ES256Signer(chain: chain).sign(
            AppleAppTransactionPayload(receiptType: "Sandbox", bundleId: "com.example.app"))
        // As Apple's library: no receiptCreationDate, the chain is checked now (valid now: accepted).
        let verified = try await verifier.verify(token, as: AppleAppTransactionPayload.self)
        #expect(verified.signedDate == nil)
        #expect(verified.bundleId == "com.example.app")
    }
}
