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

/// The Apple credentials' development setting `accept_local_testing`: `Xcode` and `LocalTesting` data accepted as
/// Apple's App Store Server Library accepts it (no check of who signed it, or whether anyone did), for an app in
/// development mode only; refused without it, with a code that names the setting. Legacy receipts of StoreKit
/// Testing in Xcode too.
@Suite struct LocalTestingProofTests {
    typealias X = XcodeProofTests

    /// A transaction as unsigned local data: `alg` `none` and no signature (`header.payload.`).
    static func unsignedTransaction(id: String, environment: AppleEnvironment = .localTesting) throws -> String {
        let now = Date().appleMilliseconds
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(
            Array(
                """
                {"transactionId":"\(id)","originalTransactionId":"\(id)","bundleId":"\(VerifierHarness.bundleID)",
                "productId":"com.example.garden.extra","purchaseDate":\(now - 1000),"originalPurchaseDate":\(now - 1000),
                "quantity":1,"type":"Non-Consumable","inAppOwnershipType":"PURCHASED","signedDate":\(now),
                "environment":"\(environment.rawValue)","storefront":"USA","currency":"USD","price":990}
                """.utf8))
        return "\(header).\(payload)."
    }

    /// A legacy app receipt as StoreKit Testing in Xcode makes it: receipt type `Xcode`, signed by the Mac's StoreKit
    /// test certificate alone (no Apple chain, no marker extensions).
    static func xcodeReceipt(
        signedBy signer: (certificate: Certificate, key: P256.Signing.PrivateKey), id: String
    ) throws -> String {
        let receipt = AppReceipt(
            receiptType: "Xcode", bundleId: VerifierHarness.bundleID,
            inAppPurchases: [
                AppReceipt.InAppPurchase(
                    productId: "com.example.garden.extra", transactionId: id,
                    purchaseDate: Date().addingTimeInterval(-60))
            ])
        let der = try AppReceiptContainer.sign(
            payload: try receipt.derPayload(), certificate: signer.certificate,
            privateKey: Certificate.PrivateKey(signer.key), signatureAlgorithm: .ecdsaWithSHA256,
            additionalCertificates: [])
        return Data(der).base64EncodedString()
    }

    static func purchase(receipt: String, _ harness: VerifierHarness) async throws -> any HTTPAnswer {
        let request = PurchaseRequest(
            appUserID: "user-1", deviceID: "device-1", appVersion: "1.0",
            proof: StoreProofFields(receiptData: receipt))
        return try await harness.send(.post, "/v1/purchases", kind: .public, json: try TestJSON.encode(request))
    }

    @Test("With accept_local_testing, LocalTesting and Xcode data is granted unverified, marked as its environment")
    func acceptedUnverified() async throws {
        try await VerifierHarness.run { harness in
            let configured = try await harness.configureApple([
                "environments": ["sandbox"], "accept_local_testing": true,
            ])
            #expect(configured.status == .ok, "\(configured.text)")
            #expect(try configured.violations(.put, "/v1/admin/stores/{store}") == [])
            #expect(configured.text.contains(#""accept_local_testing":true"#), "\(configured.text)")

            // Not signed at all.
            let unsigned = try await harness.purchase(signedTransaction: try Self.unsignedTransaction(id: X.newID()))
            #expect(unsigned.status == .ok, "\(unsigned.text)")
            #expect(try unsigned.decode(PurchaseResponse.self).transactions.first?.environment == .localTesting)
            // Signed by a chain of Apple's shape this verifier does not trust (as Apple's StoreKit test chain).
            let chained = try await harness.purchase(
                signedTransaction: try harness.signedTransaction(id: X.newID(), environment: .localTesting))
            #expect(chained.status == .ok, "\(chained.text)")
            // Xcode data signed by a certificate nobody uploaded.
            let xcode = try await harness.purchase(
                signedTransaction: try X.xcodeTransaction(signedBy: try X.storeKitTestCertificate(), id: X.newID()))
            #expect(xcode.status == .ok, "\(xcode.text)")
            #expect(try xcode.decode(PurchaseResponse.self).transactions.first?.environment == .xcode)
            // Still the app's own data only.
            let other = try await harness.purchase(
                signedTransaction: try X.xcodeTransaction(
                    signedBy: try X.storeKitTestCertificate(), id: X.newID(), bundleID: "com.other"))
            #expect(other.problemCode == "wrong_bundle_id", "\(other.text)")
            // Kept apart from real money: the sales report's production figures hold none of it.
            let events = try await harness.events()
            #expect(!events.isEmpty && events.allSatisfy { ($0["environment"] as? String) != "production" })
        }
    }

    @Test(
        "Without the setting, LocalTesting data not signed with the uploaded certificate is local_testing_not_allowed")
    func refusedWithoutTheSetting() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple(["environments": ["sandbox"]]).status == .ok)
            let unsigned = try await harness.purchase(signedTransaction: try Self.unsignedTransaction(id: X.newID()))
            #expect(unsigned.status == .unprocessableContent, "\(unsigned.text)")
            #expect(unsigned.problemCode == "local_testing_not_allowed", "\(unsigned.text)")
            #expect(unsigned.text.contains("accept_local_testing"), "\(unsigned.text)")
            let xcode = try await harness.purchase(
                signedTransaction: try X.xcodeTransaction(signedBy: try X.storeKitTestCertificate(), id: X.newID()))
            #expect(xcode.problemCode == "storekit_test_certificate_missing", "\(xcode.text)")
            #expect(xcode.text.contains("accept_local_testing"), "\(xcode.text)")

            // With a certificate uploaded, another chain's LocalTesting data is still refused, naming the setting.
            let mine = try X.storeKitTestCertificate()
            #expect(
                try await harness.configureApple([
                    "environments": ["sandbox"],
                    "storekit_test_certificate": try mine.certificate.serializeAsPEM().pemString,
                ]).status == .ok)
            let chained = try await harness.purchase(
                signedTransaction: try harness.signedTransaction(id: X.newID(), environment: .localTesting))
            #expect(chained.problemCode == "local_testing_not_allowed", "\(chained.text)")
            let unsignedAgain = try await harness.purchase(
                signedTransaction: try Self.unsignedTransaction(id: X.newID()))
            #expect(unsignedAgain.problemCode == "local_testing_not_allowed", "\(unsignedAgain.text)")
            // Signed with the uploaded certificate: granted as before.
            let signed = try await harness.purchase(
                signedTransaction: try X.xcodeTransaction(signedBy: mine, id: X.newID(), environment: .localTesting))
            #expect(signed.status == .ok, "\(signed.text)")
        }
    }

    @Test("accept_local_testing is for development mode only: refused for an app that accepts production purchases")
    func developmentModeOnly() async throws {
        try await VerifierHarness.run { harness in
            let refused = try await harness.configureApple([
                "environments": ["production", "sandbox"], "accept_local_testing": true,
            ])
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            #expect(refused.text.contains("/accept_local_testing"), "\(refused.text)")
            // Off by default, and shown so.
            #expect(try await harness.configureApple([:]).status == .ok)
            let shown = try await harness.send(.get, "/v1/admin/stores")
            #expect(shown.text.contains(#""accept_local_testing":false"#), "\(shown.text)")
            let unsigned = try await harness.purchase(signedTransaction: try Self.unsignedTransaction(id: X.newID()))
            #expect(unsigned.problemCode == "test_environment_in_production", "\(unsigned.text)")
        }
    }

    @Test("A legacy receipt of StoreKit Testing in Xcode: with the certificate or the setting, never without")
    func xcodeReceipts() async throws {
        try await VerifierHarness.run { harness in
            let xcode = try X.storeKitTestCertificate()
            #expect(try await harness.configureApple(["environments": ["sandbox"]]).status == .ok)
            let missing = try await Self.purchase(
                receipt: try Self.xcodeReceipt(signedBy: xcode, id: X.newID()), harness)
            #expect(missing.problemCode == "storekit_test_certificate_missing", "\(missing.text)")

            #expect(
                try await harness.configureApple([
                    "environments": ["sandbox"],
                    "storekit_test_certificate": try xcode.certificate.serializeAsPEM().pemString,
                ]).status == .ok)
            let id = X.newID()
            let granted = try await Self.purchase(receipt: try Self.xcodeReceipt(signedBy: xcode, id: id), harness)
            #expect(granted.status == .ok, "\(granted.text)")
            let transaction = try granted.decode(PurchaseResponse.self).transactions.first
            #expect(transaction?.transactionID == id && transaction?.environment == .xcode)
            let stranger = try await Self.purchase(
                receipt: try Self.xcodeReceipt(signedBy: try X.storeKitTestCertificate(), id: X.newID()), harness)
            #expect(stranger.problemCode == "untrusted_chain", "\(stranger.text)")

            #expect(
                try await harness.configureApple(["environments": ["sandbox"], "accept_local_testing": true]).status
                    == .ok)
            let unverified = try await Self.purchase(
                receipt: try Self.xcodeReceipt(signedBy: try X.storeKitTestCertificate(), id: X.newID()), harness)
            #expect(unverified.status == .ok, "\(unverified.text)")

            // An app in production mode never takes one.
            #expect(
                try await harness.configureApple(["storekit_test_certificate": try X.base64DER(xcode.certificate)])
                    .status == .ok)
            let production = try await Self.purchase(
                receipt: try Self.xcodeReceipt(signedBy: xcode, id: X.newID()), harness)
            #expect(production.problemCode == "test_environment_in_production", "\(production.text)")
        }
    }
}
