import Crypto
import Foundation
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// The App Store Server API of the two Apple hosts: Apple's bearer check, environments, history, status, lookup.
@Suite struct AppStoreServerAPITests {
    @Test func aValidBearerGetsTheSignedTransaction() async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.appleKey()
            let bought = try await sandbox.buyApple()
            let response = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)",
                bearer: try AppleBearer.token(key))
            #expect(response.status == .ok)
            let info = try sandbox.decode(AppStoreTransactionInfoResponse.self, response)
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let payload = try await verifier.verify(
                try #require(info.signedTransactionInfo), as: AppleTransactionPayload.self)
            #expect(payload.transactionId == bought.transactionId)
        }
    }

    /// Each way a bearer token can be wrong gets a bare 401, as from Apple.
    @Test(arguments: [
        "wrong audience", "wrong bundle", "expired", "lifetime over an hour", "issued in the future", "unknown kid",
        "wrong signature", "wrong issuer's bundle", "no token",
    ])
    func badBearerTokensGet401WithoutBody(_ fault: String) async throws {
        try await SandboxHarness.run { sandbox in
            let key = try await sandbox.appleKey()
            let otherTeam = try await sandbox.appleKey(bundleID: "com.other.app")
            let bought = try await sandbox.buyApple()
            let token: String? =
                switch fault {
                case "wrong audience": try AppleBearer.token(key, audience: "appstoreconnect-v2")
                case "wrong bundle": try AppleBearer.token(key, bundleID: "com.example.unknown")
                case "expired": try AppleBearer.token(key, issuedAt: Date(timeIntervalSinceNow: -1300))
                case "lifetime over an hour": try AppleBearer.token(key, lifetime: 3601)
                case "issued in the future": try AppleBearer.token(key, issuedAt: Date(timeIntervalSinceNow: 300))
                case "unknown kid": try AppleBearer.token(key, keyID: "NOTAKEY123")
                case "wrong signature": try AppleBearer.token(key, signingKey: P256.Signing.PrivateKey())
                // A valid token of another team, for that team's app: the transaction is not its app's.
                case "wrong issuer's bundle": try AppleBearer.token(otherTeam)
                default: nil
                }
            let response = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)", bearer: token)
            #expect(response.status == .unauthorized)
            #expect(response.body.readableBytes == 0)
            // The same key, used correctly, works: the refusal was about the token.
            let good = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/transactions/\(bought.transactionId)",
                bearer: try AppleBearer.token(key))
            #expect(good.status == .ok)
        }
    }

    @Test func eachHostSeesOnlyItsOwnEnvironment() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let production = try await sandbox.buyApple(["environment": "Production"])
            let sandboxed = try await sandbox.buyApple()
            for (host, id, found) in [
                ("sandbox", production.transactionId, false), ("production", production.transactionId, true),
                ("production", sandboxed.transactionId, false), ("sandbox", sandboxed.transactionId, true),
            ] {
                let response = try await sandbox.send(
                    .get, "/apple/\(host)/inApps/v1/transactions/\(id)", bearer: bearer)
                if found {
                    #expect(response.status == .ok)
                } else {
                    #expect(response.status == .notFound)
                    let error = try sandbox.decode(AppStoreErrorPayload.self, response)
                    #expect(
                        error == AppStoreErrorPayload(errorCode: 4_040_010, errorMessage: "Transaction id not found."))
                }
            }
            let invalid = try await sandbox.send(.get, "/apple/sandbox/inApps/v1/transactions/abc", bearer: bearer)
            #expect(invalid.status == .badRequest)
            #expect(try sandbox.decode(AppStoreErrorPayload.self, invalid).errorCode == 4_000_006)
        }
    }

    @Test func historyPagesThroughTheCustomersTransactionsOnly() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let customer = UUID().uuidString.lowercased()
            var bought: [String] = []
            for index in 0..<23 {
                let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60)
                bought.append(
                    try await sandbox.buyApple([
                        "app_account_token": customer, "purchase_date": date.formatted(.iso8601),
                    ]).transactionId)
            }
            _ = try await sandbox.buyApple(["app_account_token": UUID().uuidString])  // another customer
            let path = "/apple/sandbox/inApps/v2/history/\(bought[5])"
            let first = try sandbox.decode(
                AppStoreHistoryResponse.self, try await sandbox.send(.get, path, bearer: bearer))
            #expect(first.hasMore == true && first.signedTransactions?.count == 20)
            #expect(first.bundleId == "com.example.garden" && first.environment == "Sandbox")
            let revision = try #require(first.revision)
            let second = try sandbox.decode(
                AppStoreHistoryResponse.self,
                try await sandbox.send(.get, path + "?revision=\(revision)", bearer: bearer))
            #expect(second.hasMore == false && second.signedTransactions?.count == 3)
            let ids = try (first.signedTransactions ?? []) + (second.signedTransactions ?? [])
            let seen = try ids.map { try #require(jwsPayloadObject($0)["transactionId"] as? String) }
            #expect(seen == bought)  // ascending purchase date, each once, nobody else's

            let descending = try sandbox.decode(
                AppStoreHistoryResponse.self, try await sandbox.send(.get, path + "?sort=DESCENDING", bearer: bearer))
            #expect(
                try jwsPayloadObject(descending.signedTransactions?.first ?? "")["transactionId"] as? String
                    == bought.last)
            let bad = try await sandbox.send(.get, path + "?revision=nonsense", bearer: bearer)
            #expect(bad.status == .badRequest)
            #expect(try sandbox.decode(AppStoreErrorPayload.self, bad).errorCode == 4_000_005)
        }
    }

    @Test func subscriptionStatusIsActiveThenRevokedAfterARefund() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let customer = UUID().uuidString
            let monthly = try await sandbox.buyApple([
                "product_id": "garden.monthly", "type": "Auto-Renewable Subscription", "period": "P1M",
                "app_account_token": customer,
            ])
            let lapsed = try await sandbox.buyApple([
                "product_id": "garden.weekly", "type": "Auto-Renewable Subscription", "period": "P1W",
                "purchase_date": "2024-01-01T00:00:00Z", "app_account_token": customer,
                "subscription_group_identifier": "21000002",
            ])
            func statuses() async throws -> [String: Int] {
                let response = try await sandbox.send(
                    .get, "/apple/sandbox/inApps/v1/subscriptions/\(monthly.transactionId)", bearer: bearer)
                #expect(response.status == .ok)
                let status = try sandbox.decode(AppStoreStatusResponse.self, response)
                #expect(status.data?.count == 2)
                var result: [String: Int] = [:]
                for item in (status.data ?? []).flatMap({ $0.lastTransactions ?? [] }) {
                    result[item.originalTransactionId ?? ""] = item.status
                }
                return result
            }
            #expect(try await statuses() == [monthly.transactionId: 1, lapsed.transactionId: 2])

            _ = try await sandbox.send(.post, "/sandbox/apple/transactions/\(monthly.transactionId)/refund")
            #expect(try await statuses() == [monthly.transactionId: 5, lapsed.transactionId: 2])
            let response = try await sandbox.send(
                .get, "/apple/sandbox/inApps/v1/subscriptions/\(monthly.transactionId)?status=5", bearer: bearer)
            let status = try sandbox.decode(AppStoreStatusResponse.self, response)
            let item = try #require(status.data?.first?.lastTransactions?.first)
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let transaction = try await verifier.verify(
                try #require(item.signedTransactionInfo), as: AppleTransactionPayload.self)
            let renewal = try await verifier.verify(
                try #require(item.signedRenewalInfo), as: AppleRenewalInfoPayload.self)
            #expect(transaction.revocationDate != nil && transaction.revocationReason == 0)
            #expect(renewal.autoRenewStatus == 0 && renewal.originalTransactionId == monthly.transactionId)
        }
    }

    @Test func billingRetryAndGracePeriodShowAsStatus3And4() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let lapsed = try await sandbox.buyApple([
                "product_id": "garden.weekly", "type": "Auto-Renewable Subscription", "period": "P1W",
                "purchase_date": "2024-01-01T00:00:00Z",
            ])
            func item() async throws -> AppStoreLastTransactionsItem {
                let response = try await sandbox.send(
                    .get, "/apple/sandbox/inApps/v1/subscriptions/\(lapsed.transactionId)", bearer: bearer)
                let status = try sandbox.decode(AppStoreStatusResponse.self, response)
                return try #require(status.data?.first?.lastTransactions?.first)
            }
            #expect(try await item().status == 2)
            let renewal = "/sandbox/apple/subscriptions/\(lapsed.transactionId)/renewal"
            let retry = try await sandbox.send(.post, renewal, json: ["billing_retry": true])
            #expect(try sandbox.decode(AppleRenewalState.self, retry).status == 3)
            #expect(try await item().status == 3)
            let grace = Date(timeIntervalSinceNow: 3 * 86_400)
            _ = try await sandbox.send(.post, renewal, json: ["grace_period_expires_date": grace.formatted(.iso8601)])
            let inGrace = try await item()
            #expect(inGrace.status == 4)
            let verifier = try AppleSignedDataVerifier(trustedRoots: [try await sandbox.root()])
            let info = try await verifier.verify(
                try #require(inGrace.signedRenewalInfo), as: AppleRenewalInfoPayload.self)
            #expect(info.isInBillingRetryPeriod == true && info.expirationIntent == 2)
            #expect(
                info.gracePeriodExpiresDate
                    == Date(timeIntervalSince1970: grace.timeIntervalSince1970.rounded(.down)).appleMilliseconds)
            _ = try await sandbox.send(.post, renewal, json: ["billing_retry": false, "auto_renew": false])
            let over = try await item()
            #expect(over.status == 2)
            let ended = try await verifier.verify(
                try #require(over.signedRenewalInfo), as: AppleRenewalInfoPayload.self)
            #expect(ended.autoRenewStatus == 0 && ended.expirationIntent == 1 && ended.isInBillingRetryPeriod == false)
            let consumable = try await sandbox.buyApple()
            let refused = try await sandbox.send(
                .post, "/sandbox/apple/subscriptions/\(consumable.transactionId)/renewal", json: ["auto_renew": false])
            #expect(refused.status == .unprocessableContent)
        }
    }

    @Test func orderLookupFindsTheOrdersTransactionsForTheTokensApp() async throws {
        try await SandboxHarness.run { sandbox in
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let bought = try await sandbox.buyApple()
            let found = try sandbox.decode(
                AppStoreOrderLookupResponse.self,
                try await sandbox.send(.get, "/apple/sandbox/inApps/v1/lookup/\(bought.orderId)", bearer: bearer))
            #expect(found.status == 0 && found.signedTransactions?.count == 1)
            let otherHost = try sandbox.decode(
                AppStoreOrderLookupResponse.self,
                try await sandbox.send(.get, "/apple/production/inApps/v1/lookup/\(bought.orderId)", bearer: bearer))
            #expect(otherHost.status == 1 && otherHost.signedTransactions?.isEmpty == true)
        }
    }
}
