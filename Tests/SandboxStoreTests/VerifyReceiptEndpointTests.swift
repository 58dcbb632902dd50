import Foundation
import NIOCore
import ShopkeeperStores
import Testing
import X509

@testable import SandboxStore

extension SandboxHarness {
    /// `POST /apple/{host}/verifyReceipt` with Apple's body; expects Apple's HTTP 200.
    func verifyReceipt(
        _ receiptData: String, host: AppleHost = .sandbox, password: String? = nil, excludeOld: Bool? = nil
    ) async throws -> VerifyReceiptResponse {
        let request = VerifyReceiptRequest(
            receiptData: receiptData, password: password, excludeOldTransactions: excludeOld)
        return try await verifyReceipt(body: ByteBuffer(bytes: try JSONEncoder().encode(request)), host: host)
    }

    /// `POST /apple/{host}/verifyReceipt` with any body; expects Apple's HTTP 200.
    func verifyReceipt(body: ByteBuffer, host: AppleHost = .sandbox) async throws -> VerifyReceiptResponse {
        let response = try await send(
            .post, "\(host.mountPath)/verifyReceipt", body: body, headers: [.contentType: "application/json"])
        #expect(response.status == .ok)
        return try decode(VerifyReceiptResponse.self, response)
    }
}

/// Legacy `verifyReceipt` on both Apple hosts: Apple's table of statuses, the customer's current transactions,
/// renewal info and injected Apple statuses.
@Suite struct VerifyReceiptEndpointTests {
    static let alice = SandboxReceiptTests.alice
    /// A monthly subscription of Alice's (`[String: Any]` is not `Sendable`: a new one each time).
    static var monthly: [String: Any] {
        [
            "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
            "app_account_token": alice,
        ]
    }

    @Test func aValidReceiptAnswersItsReceiptTheCurrentTransactionsAndRenewalInfo() async throws {
        try await SandboxHarness.run { sandbox in
            let secret = try await sandbox.sharedSecret()
            let garden = try await sandbox.buyApple([
                "product_id": "extra_garden", "type": "Non-Consumable", "app_account_token": Self.alice,
                "purchase_date": "2024-01-01T00:00:00Z",
            ])
            let first = try await sandbox.buyApple(Self.monthly)
            let renewal = try await sandbox.buyApple(
                Self.monthly.merging([
                    "original_transaction_id": first.transactionId,
                    "purchase_date": Date().addingTimeInterval(60).formatted(.iso8601),
                ]) { $1 })
            let answer = try await sandbox.verifyReceipt(first.receiptData, password: secret)
            #expect(answer.status == .valid && answer.environment == "Sandbox" && answer.isRetryable == nil)
            let receipt = try #require(answer.receipt)
            #expect(receipt.bundleId == "com.example.garden" && receipt.receiptType == "ProductionSandbox")
            #expect(receipt.inApp.map(\.transactionId) == [garden.transactionId, first.transactionId])
            #expect(answer.latestReceipt == first.receiptData)
            // Newest first, including the renewal made after the receipt.
            let latest = try #require(answer.latestReceiptInfo)
            #expect(latest.map(\.transactionId) == [renewal.transactionId, first.transactionId, garden.transactionId])
            #expect(latest[0].originalTransactionId == first.transactionId && latest[0].expiresDateMs != nil)
            #expect(latest[0].subscriptionGroupIdentifier != nil && latest[2].expiresDateMs == nil)
            #expect(latest.allSatisfy { $0.cancellationDate == nil && $0.inAppOwnershipType == "PURCHASED" })

            let renewals = try #require(answer.pendingRenewalInfo)
            #expect(renewals.count == 1)
            #expect(renewals.first?.originalTransactionId == first.transactionId)
            #expect(renewals.first?.productId == "garden.monthly")
            #expect(renewals.first?.autoRenewProductId == "garden.monthly")
            #expect(renewals.first?.autoRenewStatus == "1" && renewals.first?.expirationIntent == nil)

            // No password, or the right one, are both accepted.
            #expect(try await sandbox.verifyReceipt(first.receiptData).status == .valid)
            // Only the latest renewal of each subscription, other purchases kept.
            let recent = try await sandbox.verifyReceipt(first.receiptData, excludeOld: true)
            #expect(recent.latestReceiptInfo?.map(\.transactionId) == [renewal.transactionId, garden.transactionId])
        }
    }

    @Test func everyRefusalHasApplesStatusWithoutAReceipt() async throws {
        try await SandboxHarness.run { sandbox in
            _ = try await sandbox.sharedSecret()
            let sandboxPurchase = try await sandbox.buyApple()
            let productionPurchase = try await sandbox.buyApple(["environment": "Production"])
            let der = try #require(Data(base64Encoded: sandboxPurchase.receiptData))

            // Signed by a chain this store did not make.
            let receipt = try await sandbox.readReceipt(sandboxPurchase.receiptData)
            let stranger = Data(try AppReceiptContainer.sign(receipt, with: try SigningChain.generate()))
            // One letter of the product id changed after signing.
            var tampered = Array(der)
            let productID = Array("fertilizer".utf8)
            let at = try #require(
                (0...(tampered.count - productID.count)).first {
                    Array(tampered[$0..<$0 + productID.count]) == productID
                })
            tampered[at + productID.count - 1] = UInt8(ascii: "s")

            let cases: [(String, ByteBuffer, AppleHost, Int)] = [
                ("not JSON", ByteBuffer(string: "receipt-data=abc"), .sandbox, 21002),
                ("no receipt-data", ByteBuffer(string: #"{"password":"x"}"#), .sandbox, 21002),
                ("empty receipt-data", try Self.body(""), .sandbox, 21002),
                ("not base64", try Self.body("%%% not base64 %%%"), .sandbox, 21002),
                ("not a receipt", try Self.body(Data("hello, receipt".utf8).base64EncodedString()), .sandbox, 21002),
                ("another chain", try Self.body(stranger.base64EncodedString()), .sandbox, 21003),
                ("tampered", try Self.body(Data(tampered).base64EncodedString()), .sandbox, 21003),
                ("wrong password", try Self.body(sandboxPurchase.receiptData, password: "0badc0de"), .sandbox, 21004),
                ("sandbox at production", try Self.body(sandboxPurchase.receiptData), .production, 21007),
                ("production at sandbox", try Self.body(productionPurchase.receiptData), .sandbox, 21008),
            ]
            for (name, body, host, status) in cases {
                let answer = try await sandbox.verifyReceipt(body: body, host: host)
                #expect(answer.status.code == status, "\(name)")
                #expect(answer.receipt == nil && answer.latestReceiptInfo == nil, "\(name)")
                #expect(answer.isRetryable == nil, "\(name)")
            }
            // The same receipts where they belong.
            #expect(try await sandbox.verifyReceipt(productionPurchase.receiptData, host: .production).status == .valid)
            let production = try await sandbox.verifyReceipt(productionPurchase.receiptData, host: .production)
            #expect(production.environment == "Production" && production.receipt?.receiptType == "Production")
        }
    }

    @Test func aRefundAfterTheReceiptShowsAsCancellationInLatestReceiptInfo() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple(Self.monthly)
            let refund = try await sandbox.send(
                .post, "/sandbox/apple/transactions/\(bought.transactionId)/refund", json: ["reason": 1])
            #expect(refund.status == .ok)
            let answer = try await sandbox.verifyReceipt(bought.receiptData)
            #expect(answer.status == .valid)
            #expect(answer.receipt?.inApp.first?.cancellationDate == nil)  // the receipt predates the refund
            let latest = try #require(answer.latestReceiptInfo?.first)
            let revocation = try jwsPayloadObject(
                try sandbox.decode(AppleTransactionCreated.self, refund).signedTransaction)
            #expect(latest.transactionId == bought.transactionId)
            #expect(latest.cancellationDateMs == (revocation["revocationDate"] as? Int64).map { String($0) })
            #expect(latest.cancellationDate?.hasSuffix("Etc/GMT") == true && latest.cancellationReason == "1")
            #expect(answer.pendingRenewalInfo?.first?.autoRenewStatus == "0")
        }
    }

    @Test func pendingRenewalInfoFollowsTheRenewalState() async throws {
        try await SandboxHarness.run { sandbox in
            let lapsed = try await sandbox.buyApple(
                Self.monthly.merging(["purchase_date": "2020-01-01T00:00:00Z"]) { $1 })
            let renewal = "/sandbox/apple/subscriptions/\(lapsed.transactionId)/renewal"
            func info() async throws -> VerifyReceiptResponse.PendingRenewalInfo {
                try #require(try await sandbox.verifyReceipt(lapsed.receiptData).pendingRenewalInfo?.first)
            }
            _ = try await sandbox.send(.post, renewal, json: ["billing_retry": true])
            let retrying = try await info()
            #expect(retrying.isInBillingRetryPeriod == "1" && retrying.expirationIntent == "2")
            #expect(retrying.gracePeriodExpiresDateMs == nil)

            let grace = Date().addingTimeInterval(86_400)
            _ = try await sandbox.send(.post, renewal, json: ["grace_period_expires_date": grace.formatted(.iso8601)])
            let inGrace = try await info()
            #expect(inGrace.gracePeriodExpiresAt.map { abs($0.timeIntervalSince(grace)) < 1 } == true)

            _ = try await sandbox.send(.post, renewal, json: ["billing_retry": false, "auto_renew": false])
            let cancelled = try await info()
            #expect(cancelled.autoRenewStatus == "0" && cancelled.expirationIntent == "1")
            #expect(cancelled.isInBillingRetryPeriod == "0" && cancelled.gracePeriodExpiresDate == nil)
        }
    }

    @Test func appleStatusFaultsAnswerForExactlyTheirCountThenTheReceipt() async throws {
        try await SandboxHarness.run { sandbox in
            let bought = try await sandbox.buyApple()
            for (status, count, retryable) in [(21199, 2, true), (21005, 1, false), (21002, 1, false)] {
                let fault = try await sandbox.send(
                    .post, "/sandbox/faults",
                    json: ["endpoint": "apple.sandbox.verifyReceipt", "count": count, "apple_status": status])
                #expect(fault.status == .created)
                for _ in 0..<count {
                    let answer = try await sandbox.verifyReceipt(bought.receiptData)
                    #expect(answer.status.code == status)
                    #expect(answer.isRetryable == (retryable ? true : nil))
                    #expect(answer.receipt == nil && answer.latestReceipt == nil)
                }
                let recovered = try await sandbox.verifyReceipt(bought.receiptData)
                #expect(recovered.status == .valid && recovered.receipt != nil, "after \(status)")
            }
            // The other host was not affected and nothing called it.
            let calls = try sandbox.decode(CallCounts.self, try await sandbox.send(.get, "/sandbox/calls")).calls
            #expect(calls["apple.sandbox.verifyReceipt"] == 7)
            #expect(calls["apple.production.verifyReceipt"] == 0)

            _ = try await sandbox.send(
                .post, "/sandbox/faults",
                json: ["endpoint": "apple.production.verifyReceipt", "count": 1, "status": 503])
            let failed = try await sandbox.send(
                .post, "/apple/production/verifyReceipt", body: try Self.body(bought.receiptData),
                headers: [.contentType: "application/json"])
            #expect(failed.status == .serviceUnavailable)
            #expect(try await sandbox.verifyReceipt(bought.receiptData, host: .production).status.code == 21007)
        }
    }

    @Test func receiptErrorsMapToApplesStatuses() {
        let table: [(AppReceiptError, Int)] = [
            (.malformed("x"), 21002), (.invalidSignature("x"), 21003), (.untrustedChain("x"), 21003),
            (.missingMarkerExtension("x"), 21003), (.certificateNotValidAtSigningDate("x"), 21003),
        ]
        for (error, status) in table {
            #expect(VerifyReceiptController.status(for: error) == status, "\(error.code)")
        }
    }

    static func body(_ receiptData: String, password: String? = nil) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONEncoder().encode(VerifyReceiptRequest(receiptData: receiptData, password: password)))
    }
}
