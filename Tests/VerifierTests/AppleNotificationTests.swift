import Foundation
import HummingbirdTesting
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperStores
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// `POST /v1/notifications/apple`: verified, attributed, recorded once, answered, then processed in the background.
@Suite("App Store Server Notifications") struct AppleNotificationTests {
    /// A signed notification about `transaction` (a signed transaction) from the harness's chain.
    func notification(
        _ harness: VerifierHarness, type: AppleNotificationType, subtype: AppleNotificationSubtype? = nil,
        uuid: String = UUID().uuidString.lowercased(), transaction: String? = nil,
        renewal: AppleRenewalInfoPayload? = nil,
        bundleID: String = VerifierHarness.bundleID
    ) throws -> String {
        let signer = try ES256Signer(chain: harness.chain)
        let payload = AppleNotificationPayload(
            notificationType: type.rawValue, subtype: subtype?.rawValue, notificationUUID: uuid,
            data: .init(
                bundleId: bundleID, bundleVersion: "1.0", environment: "Sandbox", signedTransactionInfo: transaction,
                signedRenewalInfo: try renewal.map { try signer.sign($0) }, status: 1),
            signedDate: Date().appleMilliseconds)
        return try signer.sign(payload)
    }

    func post(_ harness: VerifierHarness, _ signedPayload: String, app: String?, atOnce: Bool = false) async throws
        -> any HTTPAnswer
    {
        let path = "/v1/notifications/apple" + (app.map { "?app=\($0)" } ?? "")
        return try await harness.send(
            .post, path, json: try JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload]),
            atOnce: atOnce)
    }

    /// Runs `body` with a verifier on a database of its own: no other test's verifier (trusting other roots) may
    /// take these notifications from the shared inbox.
    func withOwnDatabase(_ body: @Sendable @escaping (VerifierHarness, DatabaseSettings) async throws -> Void)
        async throws
    {
        try await TestDatabase.withFreshDatabase { database in
            try await VerifierHarness.run(environment: ["DATABASE_URL": database.url]) { harness in
                try await body(harness, database)
            }
        }
    }

    /// The notification's state in the inbox, once it is no longer pending (or `pending` after `timeout`).
    func settledState(id: String, database: DatabaseSettings, timeout: Duration = .seconds(10)) async throws
        -> (String, String?)
    {
        let row = try await eventually(
            timeout: timeout,
            {
                try await TestDatabase.withClient(database) { client in
                    let rows = try await client.query(
                        "SELECT state, last_error FROM verifier.notifications WHERE notification_id = \(id)")
                    var found: (String, String?)?
                    for try await row in rows.decode((String, String?).self) { found = row }
                    return found
                }
            }, until: { $0.map { $0.0 != "pending" } ?? false })
        return row ?? ("missing", nil)
    }

    @Test("A notification is recorded once and answered 200; its transaction becomes a recorded fact")
    func recordedOnce() async throws {
        try await withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            let transaction = try harness.signedTransaction(
                productID: "com.example.garden.pro", type: .autoRenewable, expires: Date().addingTimeInterval(86_400))
            let uuid = UUID().uuidString.lowercased()
            let renewal = AppleRenewalInfoPayload(
                originalTransactionId: nil, autoRenewStatus: 0, signedDate: Date().appleMilliseconds,
                environment: "Sandbox")
            let signed = try notification(
                harness, type: .didChangeRenewalStatus, subtype: .autoRenewDisabled, uuid: uuid,
                transaction: transaction, renewal: renewal)
            let first = try await post(harness, signed, app: harness.appID)
            #expect(first.status == .ok)
            let receipt = try first.decode([String: AnyCodableValue].self)
            #expect(receipt["duplicate"] == .bool(false))
            #expect(receipt["notification_id"] == .string(uuid))
            // Apple retries: the same notification again, and six more at once, change nothing.
            let again = try await post(harness, signed, app: harness.appID)
            #expect(try again.decode([String: AnyCodableValue].self)["duplicate"] == .bool(true))
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await post(harness, signed, app: harness.appID, atOnce: true).status.code }
                }
                for try await status in group { #expect(status == 200) }
            }
            let (state, error) = try await settledState(id: uuid, database: database)
            #expect(state == "processed", "\(error ?? "")")
            let facts = try await TestDatabase.withClient(database) { client in
                let rows = try await client.query(
                    """
                    SELECT count(*)::int FROM verifier.transactions
                    WHERE app_id = \(harness.appID) AND proof_kind = 'notification'
                    """)
                var count = 0
                for try await value in rows.decode(Int.self) { count = value }
                return count
            }
            #expect(facts == 1)
        }
    }

    @Test("A TEST notification is recorded and acknowledged with nothing to apply")
    func testNotification() async throws {
        try await withOwnDatabase { harness, database in
            #expect(try await harness.configureApple().status == .ok)
            let uuid = UUID().uuidString.lowercased()
            let response = try await post(
                harness, try notification(harness, type: .test, uuid: uuid), app: harness.appID)
            #expect(response.status == .ok)
            #expect(try await settledState(id: uuid, database: database).0 == "processed")
        }
    }

    @Test("Forged, foreign and unattributable notifications are 4xx problems with nothing recorded")
    func refused() async throws {
        try await VerifierHarness.run { harness in
            #expect(try await harness.configureApple().status == .ok)
            // Signed by a chain nobody trusts.
            let stranger = try SigningChain.generate(SigningChain.Options(name: "Stranger"))
            let forged = try (try ES256Signer(chain: stranger)).sign(
                AppleNotificationPayload(
                    notificationType: "TEST", notificationUUID: UUID().uuidString,
                    data: .init(bundleId: VerifierHarness.bundleID, environment: "Sandbox"),
                    signedDate: Date().appleMilliseconds))
            let untrusted = try await post(harness, forged, app: harness.appID)
            #expect(untrusted.status == .unprocessableContent)
            #expect(untrusted.problemCode == "untrusted_chain")
            // Another app's bundle id.
            let foreign = try await post(
                harness, try notification(harness, type: .test, bundleID: "com.example.other"), app: harness.appID)
            #expect(foreign.status == .notFound && foreign.problemCode == "unknown_app")
            // Several apps share the test bundle id: without ?app= the notification names none of them.
            let ambiguous = try await post(harness, try notification(harness, type: .test), app: nil)
            #expect([.conflict, .ok].contains(ambiguous.status))
            if ambiguous.status == .conflict { #expect(ambiguous.problemCode == "ambiguous_app") }
            // Not JSON, no signedPayload.
            let malformed = try await harness.send(.post, "/v1/notifications/apple", json: Data("nope".utf8))
            #expect(malformed.status == .badRequest)
            let empty = try await harness.send(.post, "/v1/notifications/apple", json: Data("{}".utf8))
            #expect(empty.status.code >= 400 && empty.status.code < 500)
        }
    }
}

/// Enough of JSON to compare answers.
enum AnyCodableValue: Codable, Equatable {
    case bool(Bool)
    case string(String)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            self = .other
        }
    }

    func encode(to encoder: any Encoder) throws {}
}
