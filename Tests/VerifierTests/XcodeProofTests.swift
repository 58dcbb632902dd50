import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing
import X509

@testable import Verifier

/// Proofs signed by Xcode's StoreKit Testing (environments `Xcode` and `LocalTesting`): verified against the StoreKit
/// test certificate the developer uploaded, granted only for an app not in production mode, marked as such.
@Suite struct XcodeProofTests {
    /// A self-signed P-256 certificate shaped like the one Xcode's StoreKit Testing signs with, and its key.
    static func storeKitTestCertificate(name: String = "StoreKit Testing in Xcode") throws
        -> (certificate: Certificate, key: P256.Signing.PrivateKey)
    {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-86_400), notValidAfter: Date().addingTimeInterval(365 * 86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            },
            issuerPrivateKey: .init(key))
        return (certificate, key)
    }

    /// The `.cer` file's bytes (DER) as base64.
    static func base64DER(_ certificate: Certificate) throws -> String {
        Data(try certificate.serializeAsPEM().derBytes).base64EncodedString()
    }

    /// A signed transaction as Xcode writes it: one certificate in `x5c`, dates with fractional milliseconds.
    static func xcodeTransaction(
        signedBy signer: (certificate: Certificate, key: P256.Signing.PrivateKey), id: String,
        environment: AppleEnvironment = .xcode, bundleID: String = VerifierHarness.bundleID
    ) throws -> String {
        let now = Date().appleMilliseconds
        let json = """
            {"transactionId":"\(id)","originalTransactionId":"\(id)","bundleId":"\(bundleID)",
            "productId":"com.example.garden.extra","purchaseDate":\(now - 1000).485,"originalPurchaseDate":\(now - 1000).485,
            "quantity":1,"type":"Non-Consumable","inAppOwnershipType":"PURCHASED","signedDate":\(now).056,
            "environment":"\(environment.rawValue)","storefront":"USA","currency":"USD","price":990,
            "deviceVerification":"dmVyaWZ5","deviceVerificationNonce":"0c39f1b8-6e5f-4c1f-bb5e-2b1c8a2b9f00"}
            """
        let header = JWSHeader(
            alg: "ES256", kid: "Apple_Xcode_Key", typ: "JWT", x5c: [try base64DER(signer.certificate)])
        return try ES256Signer(key: signer.key, header: header).sign(payloadJSON: Array(json.utf8))
    }

    static func newID() -> String { "0" + UUID().uuidString.prefix(8) }

    @Test("An Xcode purchase is granted for a development app with the uploaded certificate, marked xcode everywhere")
    func grantedForADevelopmentApp() async throws {
        try await VerifierHarness.run { harness in
            let xcode = try Self.storeKitTestCertificate()
            // Uploaded as base64 of the .cer file; shown back as PEM (a certificate is public).
            let configured = try await harness.configureApple([
                "environments": ["sandbox"], "storekit_test_certificate": try Self.base64DER(xcode.certificate),
            ])
            #expect(configured.status == .ok, "\(configured.text)")
            #expect(try configured.violations(.put, "/v1/admin/stores/{store}") == [])
            let shown = try await harness.send(.get, "/v1/admin/stores")
            #expect(try shown.violations(.get, "/v1/admin/stores") == [])
            #expect(shown.text.contains("BEGIN CERTIFICATE"))

            let id = Self.newID()
            let bought = try await harness.purchase(
                signedTransaction: try Self.xcodeTransaction(signedBy: xcode, id: id))
            #expect(bought.status == .ok, "\(bought.text)")
            #expect(try bought.violations(.post, "/v1/purchases") == [])
            let response = try bought.decode(PurchaseResponse.self)
            #expect(response.transactions.first?.environment == .xcode)
            #expect(response.outcomes.first?.outcome != nil)
            #expect(response.customer?.nonSubscriptionPurchases.first?.environment == .xcode)
            let event = try #require(try await harness.events().first)
            #expect(event["environment"] as? String == "xcode", "\(event)")

            // LocalTesting is the same story, marked local_testing.
            let local = try await harness.purchase(
                signedTransaction: try Self.xcodeTransaction(
                    signedBy: xcode, id: Self.newID(), environment: .localTesting))
            #expect(local.status == .ok, "\(local.text)")
            #expect(try local.decode(PurchaseResponse.self).transactions.first?.environment == .localTesting)
        }
    }

    /// An app transaction as Xcode's StoreKit Testing signs it: no `appTransactionId`.
    static func xcodeAppTransaction(signedBy signer: (certificate: Certificate, key: P256.Signing.PrivateKey)) throws
        -> String
    {
        let now = Date().appleMilliseconds
        let json = """
            {"receiptType":"Xcode","appAppleId":0,"bundleId":"\(VerifierHarness.bundleID)","applicationVersion":"2.0",
            "receiptCreationDate":\(now).25,"requestDate":\(now).25,"originalPurchaseDate":1700000000000.5,
            "originalApplicationVersion":"1.0","deviceVerification":"dmVyaWZ5",
            "deviceVerificationNonce":"0c39f1b8-6e5f-4c1f-bb5e-2b1c8a2b9f00","originalPlatform":"iOS"}
            """
        let header = JWSHeader(
            alg: "ES256", kid: "Apple_Xcode_Key", typ: "JWT", x5c: [try base64DER(signer.certificate)])
        return try ES256Signer(key: signer.key, header: header).sign(payloadJSON: Array(json.utf8))
    }

    @Test("An Xcode app transaction without an appTransactionId is recorded for a development app, once")
    func xcodeAppTransactionWithoutAnID() async throws {
        try await VerifierHarness.run { harness in
            let xcode = try Self.storeKitTestCertificate()
            #expect(
                try await harness.configureApple([
                    "environments": ["sandbox"], "storekit_test_certificate": try Self.base64DER(xcode.certificate),
                ]).status == .ok)
            func present(_ jws: String) async throws -> [String: Any] {
                let body = try JSONSerialization.data(withJSONObject: [
                    "app_user_id": "xcode-user", "signed_app_transaction": jws,
                ])
                let answer = try await harness.send(.post, "/v1/purchases", kind: .public, json: body)
                #expect(answer.status == .ok, "\(answer.text)")
                let json = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
                return (json?["app_transaction"] as? [String: Any]) ?? [:]
            }
            #expect(
                try await present(try Self.xcodeAppTransaction(signedBy: xcode))["outcome"] as? String == "recorded")
            // Signed again (a new request, the same test install): the same app transaction.
            #expect(
                try await present(try Self.xcodeAppTransaction(signedBy: xcode))["outcome"] as? String
                    == "already_recorded")
        }
    }

    @Test("Refused: for a production app, without a certificate, with another certificate, with Apple's chain shape")
    func refusals() async throws {
        try await VerifierHarness.run { harness in
            let xcode = try Self.storeKitTestCertificate()
            let pem = try xcode.certificate.serializeAsPEM().pemString
            let proof = try Self.xcodeTransaction(signedBy: xcode, id: Self.newID())

            // An app in production mode (it accepts production purchases), even with the certificate.
            #expect(
                try await harness.configureApple([
                    "environments": ["production", "sandbox"], "storekit_test_certificate": pem,
                ]).status == .ok)
            let production = try await harness.purchase(signedTransaction: proof)
            #expect(production.status == .unprocessableContent, "\(production.text)")
            #expect(production.problemCode == "test_environment_in_production")

            // A development app without a certificate.
            #expect(try await harness.configureApple(["environments": ["sandbox"]]).status == .ok)
            let missing = try await harness.purchase(signedTransaction: proof)
            #expect(missing.problemCode == "storekit_test_certificate_missing", "\(missing.text)")

            // A development app whose certificate is another Mac's.
            #expect(
                try await harness.configureApple(["environments": ["sandbox"], "storekit_test_certificate": pem])
                    .status == .ok)
            let stranger = try Self.storeKitTestCertificate()
            let foreign = try await harness.purchase(
                signedTransaction: try Self.xcodeTransaction(signedBy: stranger, id: Self.newID()))
            #expect(foreign.status == .unprocessableContent)
            #expect(foreign.problemCode == "untrusted_chain", "\(foreign.text)")
            // The right certificate in x5c, signed by another key.
            let header = JWSHeader(alg: "ES256", x5c: [try Self.base64DER(xcode.certificate)])
            let forged = try ES256Signer(key: stranger.key, header: header).sign(
                AppleTransactionPayload(
                    transactionId: "1", bundleId: VerifierHarness.bundleID, productId: "p", purchaseDate: 1,
                    type: "Consumable", signedDate: 1, environment: "Xcode"))
            #expect(try await harness.purchase(signedTransaction: forged).problemCode == "invalid_signature")
            // Apple's three-certificate shape claiming the Xcode environment.
            let appleShaped = try harness.signedTransaction(environment: .xcode)
            #expect(
                try await harness.purchase(signedTransaction: appleShaped).problemCode == "invalid_certificate_chain")
            // Another app's bundle id, signed by the right certificate.
            let otherApp = try await harness.purchase(
                signedTransaction: try Self.xcodeTransaction(signedBy: xcode, id: Self.newID(), bundleID: "com.other"))
            #expect(otherApp.problemCode == "wrong_bundle_id")
            // Not a certificate.
            let junk = try await harness.configureApple(["storekit_test_certificate": "not a certificate"])
            #expect(junk.status == .unprocessableContent)
            #expect(junk.text.contains("/storekit_test_certificate"))
        }
    }

    @Test("A verifier with local environments switched off refuses Xcode proofs for every app")
    func switchedOff() async throws {
        try await VerifierHarness.run(environment: ["SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS": "false"]) { harness in
            let xcode = try Self.storeKitTestCertificate()
            #expect(
                try await harness.configureApple([
                    "environments": ["sandbox"],
                    "storekit_test_certificate": try xcode.certificate.serializeAsPEM().pemString,
                ]).status == .ok)
            let refused = try await harness.purchase(
                signedTransaction: try Self.xcodeTransaction(signedBy: xcode, id: Self.newID()))
            #expect(refused.problemCode == "wrong_environment", "\(refused.text)")
        }
    }
}
