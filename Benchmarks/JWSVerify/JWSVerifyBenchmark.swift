import Crypto
import Foundation
import ShopkeeperStores

/// Verifying a StoreKit 2 signed transaction in process with a warm chain cache, against the bare ES256
/// signature check of swift-crypto over the same bytes, in the same run (Benchmarks/README.md).
///
///     swift run -c release shopkeeper-bench-jws [seconds per path, default 3]
///     swift run -c release shopkeeper-bench-jws emit COUNT PKI_PEM BUNDLE_ID PRODUCTS [APP_USER_ID]   (see PurchaseBodies)
///     swift run -c release shopkeeper-bench-jws emit-notifications COUNT PKI_PEM BUNDLE_ID PRODUCT (NotificationBodies)
@main
struct JWSVerifyBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "emit-notifications" {
            guard arguments.count == 5, let count = Int(arguments[1]) else {
                FileHandle.standardError.write(
                    Data("usage: shopkeeper-bench-jws emit-notifications COUNT PKI_PEM BUNDLE_ID PRODUCT\n".utf8))
                exit(64)
            }
            try NotificationBodies.emit(
                count: count, pkiPath: arguments[2], bundleID: arguments[3], productID: arguments[4])
            return
        }
        if arguments.first == "emit" {
            guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[1]) else {
                FileHandle.standardError.write(
                    Data("usage: shopkeeper-bench-jws emit COUNT PKI_PEM BUNDLE_ID PRODUCTS [APP_USER_ID]\n".utf8))
                exit(64)
            }
            try PurchaseBodies.emit(
                count: count, pkiPath: arguments[2], bundleID: arguments[3],
                products: PurchaseBodies.products(arguments[4]), appUserID: arguments.count == 6 ? arguments[5] : nil)
            return
        }
        let seconds = Double(CommandLine.arguments.dropFirst().first ?? "") ?? 3
        let chain = try SigningChain.generate()
        let verifier = try AppleSignedDataVerifier(trustedRoots: [chain.root])
        let now = Date()
        let payload = AppleTransactionPayload(
            transactionId: "2000000812345678", originalTransactionId: "2000000812345678",
            webOrderLineItemId: nil, bundleId: "com.shopkeeper.demo.garden",
            productId: "com.shopkeeper.demo.garden.extra_garden", purchaseDate: now.appleMilliseconds,
            originalPurchaseDate: now.appleMilliseconds, quantity: 1, type: AppleProductType.nonConsumable.rawValue,
            inAppOwnershipType: "PURCHASED", signedDate: now.appleMilliseconds, environment: "Sandbox",
            storefront: "USA", storefrontId: "143441", transactionReason: "PURCHASE", currency: "USD", price: 1990
        )
        let token = try ES256Signer(chain: chain).sign(payload)
        guard let jws = CompactJWS(token),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        else { fatalError("the benchmark token does not parse") }
        let key = chain.leafKey.publicKey
        let signingInput = Data(jws.signingInput.utf8)

        // Warm up both paths (and the chain cache).
        _ = try await verifier.verify(token, as: AppleTransactionPayload.self)
        _ = key.isValidSignature(signature, for: signingInput)

        // Interleaved rounds, so that load from elsewhere on the machine affects both alike.
        let rounds = 20
        var bareRates: [Double] = []
        var fullRates: [Double] = []
        for _ in 0..<rounds {
            bareRates.append(
                measure(seconds: seconds / Double(rounds)) { key.isValidSignature(signature, for: signingInput) })
            fullRates.append(
                try await measureAsync(seconds: seconds / Double(rounds)) {
                    try await verifier.verify(token, as: AppleTransactionPayload.self).transactionId != nil
                })
        }
        let bare = median(bareRates)
        let full = median(fullRates)
        print("JWS length: \(token.utf8.count) bytes, x5c with 3 certificates")
        print("median of \(rounds) interleaved rounds, \(seconds) s in all per path")
        print(String(format: "bare ES256 verify (swift-crypto):      %9.0f /s", bare))
        print(String(format: "StoreKit 2 JWS verify, warm cache:     %9.0f /s", full))
        print(String(format: "ratio:                                 %9.2f (target >= 0.70)", full / bare))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func measure(seconds: Double, _ body: () -> Bool) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var ok = true
        while (clock.now - start) < .seconds(seconds) {
            for _ in 0..<20 { ok = body() && ok }
            count += 20
        }
        precondition(ok, "a verification failed")
        return Double(count) / durationSeconds(clock.now - start)
    }

    static func measureAsync(seconds: Double, _ body: @Sendable () async throws -> Bool) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var ok = true
        while (clock.now - start) < .seconds(seconds) {
            for _ in 0..<20 { ok = try await body() && ok }
            count += 20
        }
        precondition(ok, "a verification failed")
        return Double(count) / durationSeconds(clock.now - start)
    }

    static func durationSeconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
