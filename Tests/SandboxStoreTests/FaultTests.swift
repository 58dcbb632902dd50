import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// Injected faults and call counters, which the verifier's retry and caching tests stand on.
@Suite struct FaultTests {
    func calls(_ sandbox: SandboxHarness) async throws -> [String: Int] {
        try sandbox.decode(CallCounts.self, try await sandbox.send(.get, "/sandbox/calls")).calls
    }

    @Test func aStatusFaultFailsTheNextCallsThenTheEndpointRecovers() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let bought = try await sandbox.buyApple()
            let path = "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)"
            let fault = try await sandbox.send(
                .post, "/sandbox/faults", json: ["endpoint": "apple.sandbox.transactions", "count": 2, "status": 503])
            #expect(fault.status == .created)
            #expect(try await sandbox.send(.delete, "/sandbox/calls").status == .noContent)

            // Another endpoint is not affected.
            #expect(
                try await sandbox.send(.get, "/apple/sandbox/inApps/v1/lookup/\(bought.orderId)", bearer: bearer).status
                    == .ok)
            for _ in 0..<2 {
                let failed = try await sandbox.send(.get, path, bearer: bearer)
                #expect(failed.status == .serviceUnavailable)
                #expect(try sandbox.decode(AppStoreErrorPayload.self, failed).errorCode == 5_000_001)
            }
            #expect(try await sandbox.send(.get, path, bearer: bearer).status == .ok)
            let counts = try await calls(sandbox)
            #expect(counts["apple.sandbox.transactions"] == 3)
            #expect(counts["apple.sandbox.lookup"] == 1)
            #expect(counts["apple.production.transactions"] == 0)
            #expect(Set(counts.keys) == Set(StoreEndpoint.allCases.map(\.rawValue)))
            #expect(counts.keys.contains("apple.production.verifyReceipt"))
        }
    }

    @Test func aWildcardFaultHitsGoogleInItsOwnFormatAndCanBeCleared() async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.serviceAccount()
            let assertion = try RS256Signer(serviceAccount: key).sign(GoogleServiceAccountClaims(key: key))
            _ = try await sandbox.send(.post, "/sandbox/faults", json: ["endpoint": "*", "count": 5, "status": 500])
            let failed = try await sandbox.tokenRequest(assertion: assertion)
            #expect(failed.status == .internalServerError)
            #expect(try sandbox.decode(GoogleOAuthErrorResponse.self, failed).error == "internal_failure")
            let pending = try sandbox.decode(FaultList.self, try await sandbox.send(.get, "/sandbox/faults"))
            #expect(pending.faults.first?.count == 4)

            #expect(try await sandbox.send(.delete, "/sandbox/faults").status == .noContent)
            let token = try sandbox.decode(
                GoogleTokenResponse.self, try await sandbox.tokenRequest(assertion: assertion))
            _ = try await sandbox.send(
                .post, "/sandbox/faults", json: ["endpoint": "google.products.get", "count": 1, "status": 429])
            let bought = try await sandbox.buyGoogle()
            let path =
                "/google/androidpublisher/v3/applications/com.example.garden/purchases/products/fertilizer/tokens/"
                + bought.purchaseToken
            let limited = try await sandbox.send(.get, path, bearer: token.accessToken)
            #expect(limited.status == .tooManyRequests)
            #expect(try sandbox.decode(GoogleErrorResponse.self, limited).error.status == "RESOURCE_EXHAUSTED")
            #expect(try await sandbox.send(.get, path, bearer: token.accessToken).status == .ok)
            #expect(try await calls(sandbox)["google.token"] == 2)
            // One token was accepted by the Play Developer API (the rate-limited call never reached the check).
            let counts = try sandbox.decode(CallCounts.self, try await sandbox.send(.get, "/sandbox/calls"))
            #expect(counts.googleAccessTokensPresented == 1)
            #expect(try await sandbox.send(.delete, "/sandbox/calls").status == .noContent)
            #expect(
                try sandbox.decode(CallCounts.self, try await sandbox.send(.get, "/sandbox/calls"))
                    .googleAccessTokensPresented == 0)
        }
    }

    @Test func aDelayFaultSlowsTheCallButItSucceeds() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let bought = try await sandbox.buyApple()
            _ = try await sandbox.send(
                .post, "/sandbox/faults", json: ["endpoint": "apple.sandbox.transactions", "count": 1, "delay_ms": 300])
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)", bearer: bearer)
            #expect(response.status == .ok)
            #expect(clock.now - start >= .milliseconds(300))
        }
    }

    @Test func invalidFaultsAreRefused() async throws {
        try await SandboxHarness.run { sandbox in
            for json: [String: Any] in [
                ["endpoint": "apple.nowhere", "count": 1, "status": 500],
                ["endpoint": "apple.sandbox.transactions", "count": 1, "apple_status": 21005],
                ["endpoint": "apple.sandbox.transactions", "count": 1, "status": 404],
                ["endpoint": "apple.sandbox.transactions", "count": 0, "status": 500],
                ["endpoint": "apple.sandbox.transactions", "count": 1],
            ] {
                let response = try await sandbox.send(.post, "/sandbox/faults", json: json)
                #expect(response.status == .unprocessableContent, "\(json)")
            }
            let receipt = try await sandbox.send(
                .post, "/sandbox/faults",
                json: ["endpoint": "apple.sandbox.verifyReceipt", "count": 1, "apple_status": 21005])
            #expect(receipt.status == .created)
        }
    }

    /// An `apple_status` fault waits for a verifyReceipt call; other endpoints pass it by.
    @Test func appleStatusFaultsOnlyApplyToVerifyReceipt() async throws {
        let traffic = StoreTraffic()
        await traffic.add(Fault(endpoint: nil, remaining: 1, status: nil, appleStatus: 21005, delayMilliseconds: nil))
        #expect(await traffic.record(.appleSandboxTransactions) == nil)
        #expect(await traffic.record(.appleSandboxVerifyReceipt)?.appleStatus == 21005)
        #expect(await traffic.record(.appleSandboxVerifyReceipt) == nil)
    }
}
