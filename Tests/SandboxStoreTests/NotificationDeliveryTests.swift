import Foundation
import NIOCore
import ShopkeeperStores
import Testing

@testable import SandboxStore

/// How notifications travel: retried while the receiver fails, logged, sent again on demand, steered at runtime.
@Suite struct NotificationDeliveryTests {
    @Test func aReceiverAnswering500GetsTheSameNotificationAgainUntil200() async throws {
        try await NotificationWorld.run { world in
            await world.inbox.fail(next: 2, path: "/apple")
            let bought = try await world.sandbox.buyApple()
            let received = try await world.inbox.wait(for: 3, at: "/apple")
            #expect(received.count == 3)
            #expect(Set(received.map(\.body)).count == 1)
            let delivery = try await world.delivery { $0["delivered"] as? Bool == true }
            #expect(delivery["attempts"] as? Int == 3 && delivery["last_status"] as? Int == 200)
            #expect(
                delivery["delivered"] as? Bool == true && delivery["transaction_id"] as? String == bought.transactionId)
            #expect(delivery["type"] as? String == "ONE_TIME_CHARGE")
            // Nothing more comes.
            try await Task.sleep(for: .milliseconds(300))
            #expect(await world.inbox.requests("/apple").count == 3)
        }
    }

    @Test func attemptsAreBoundedWhileTheReceiverFails() async throws {
        try await NotificationWorld.run(environment: ["SHOPKEEPER_SANDBOX_NOTIFICATION_ATTEMPTS": "3"]) { world in
            await world.inbox.fail(next: 100, path: "/apple")
            try await world.sandbox.buyApple()
            let delivery = try await world.delivery { $0["attempts"] as? Int == 3 }
            #expect(delivery["attempts"] as? Int == 3)
            #expect(delivery["last_status"] as? Int == 500 && delivery["delivered"] as? Bool == false)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await world.inbox.requests("/apple").count == 3)
        }
    }

    @Test func aNotificationIsResentManyTimesConcurrentlyWithTheSameBody() async throws {
        try await NotificationWorld.run { world in
            try await world.sandbox.buyApple()
            let first = try await world.inbox.wait(for: 1, at: "/apple")
            let delivered = try await world.delivery { $0["attempts"] as? Int == 1 }
            let id = try #require(delivered["id"] as? String)
            let result = try await world.control(.post, "/sandbox/notifications/\(id)/resend?times=40&concurrency=16")
            #expect((result["statuses"] as? [Int])?.count == 40 && result["delivered"] as? Int == 40)
            let received = try await world.inbox.wait(for: 41, at: "/apple")
            #expect(received.count == 41 && Set(received.map(\.body)) == [first[0].body])
            let one = try await world.control(.get, "/sandbox/notifications/\(id)")
            #expect(one["resends"] as? Int == 40 && one["attempts"] as? Int == 1)
            try await world.control(.post, "/sandbox/notifications/nope/resend", status: .notFound)
            try await world.control(
                .post, "/sandbox/notifications/\(id)/resend?times=0", status: .badRequest)
        }
    }

    @Test func targetsChangeAtRuntimeAndNothingIsSentWithoutOne() async throws {
        try await NotificationWorld.run { world in
            let cleared = try await world.control(.put, "/sandbox/notifications", json: ["apple_url": NSNull()])
            #expect(cleared["apple_url"] is NSNull && cleared["google_url"] as? String == world.googleURL)
            try await world.sandbox.buyApple()
            try await world.control(
                .post, "/sandbox/notifications/apple", json: ["type": "TEST", "bundle_id": "com.example.garden"],
                status: .conflict)
            let log = try await world.control(.get, "/sandbox/notifications")
            #expect((log["deliveries"] as? [Any])?.isEmpty == true)
            try await world.control(.put, "/sandbox/notifications", json: ["apple_url": world.appleURL])
            try await world.sandbox.buyApple()
            #expect(try await world.appleKinds(count: 1) == ["ONE_TIME_CHARGE"])
            try await world.control(
                .put, "/sandbox/notifications", json: ["apple_url": "ftp://x"], status: .unprocessableContent)
        }
    }

    /// Out of order on purpose: held notifications wait in the log, are resent newest first, then released.
    @Test func heldNotificationsCanBeDeliveredInAnyOrder() async throws {
        try await NotificationWorld.run { world in
            let held = try await world.control(.put, "/sandbox/notifications", json: ["hold": true])
            #expect(held["hold"] as? Bool == true)
            let bought = try await world.sandbox.buyApple(AppleNotificationTests.monthly)
            try await world.control(.post, "/sandbox/apple/subscriptions/\(bought.transactionId)/advance")
            try await Task.sleep(for: .milliseconds(200))
            #expect(await world.inbox.requests("/apple").isEmpty)
            let log = try await world.control(.get, "/sandbox/notifications")
            let ids = try #require((log["deliveries"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
            #expect(ids.count == 2)
            for id in ids.reversed() {
                try await world.control(.post, "/sandbox/notifications/\(id)/resend")
            }
            #expect(try await world.appleKinds(count: 2) == ["DID_RENEW", "SUBSCRIBED/INITIAL_BUY"])
            try await world.control(.put, "/sandbox/notifications", json: ["hold": false])
            #expect(
                try await world.appleKinds(count: 4) == [
                    "DID_RENEW", "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/INITIAL_BUY", "DID_RENEW",
                ])
            try await world.control(
                .put, "/sandbox/notifications", json: ["hold": "yes"], status: .unprocessableContent)
        }
    }

    @Test func anyAppleNotificationTypeCanBeSentAboutATransaction() async throws {
        try await NotificationWorld.run { world in
            let bought = try await world.sandbox.buyApple()
            try await world.control(
                .post, "/sandbox/notifications/apple",
                json: [
                    "type": "CONSUMPTION_REQUEST", "transaction_id": bought.transactionId,
                    "consumption_request_reason": "UNINTENDED_PURCHASE",
                ], status: .created)
            try await world.control(
                .post, "/sandbox/notifications/apple", json: ["type": "NOT_A_TYPE", "bundle_id": "com.example.garden"],
                status: .unprocessableContent)
            let payloads = try await world.apple(count: 2)
            #expect(payloads.map(\.notificationType) == ["ONE_TIME_CHARGE", "CONSUMPTION_REQUEST"])
            #expect(payloads[1].data?.consumptionRequestReason == "UNINTENDED_PURCHASE")
            let (transaction, _) = try await world.contents(payloads[1])
            #expect(transaction?.transactionId == bought.transactionId)
        }
    }

    /// The answer to a `CONSUMPTION_REQUEST`: Send Consumption Information at the App Store Server API, kept as sent.
    @Test func consumptionInformationIsAcceptedAndKept() async throws {
        try await NotificationWorld.run { world in
            let sandbox = world.sandbox
            let bearer = try AppleBearer.token(try await sandbox.appleKey())
            let bought = try await sandbox.buyApple()
            let body = ByteBuffer(
                string: #"{"customerConsented":true,"deliveryStatus":"DELIVERED","consumptionPercentage":25000,"#
                    + #""sampleContentProvided":false,"refundPreference":"DECLINE"}"#)
            for version in ["v2", "v1"] {
                let sent = try await sandbox.send(
                    .put, "/apple/sandbox/inApps/\(version)/transactions/consumption/\(bought.transactionId)",
                    bearer: bearer, body: body, headers: [.contentType: "application/json"])
                #expect(sent.status == .accepted && sent.body.readableBytes == 0)
            }
            let refused = try await sandbox.send(
                .put, "/apple/sandbox/inApps/v2/transactions/consumption/\(bought.transactionId)", bearer: bearer,
                body: ByteBuffer(string: #"{"customerConsented":false}"#), headers: [.contentType: "application/json"])
            #expect(refused.status == .badRequest)
            #expect(try sandbox.decode(AppStoreErrorPayload.self, refused).errorCode == 4_000_000)
            let unknown = try await sandbox.send(
                .put, "/apple/sandbox/inApps/v2/transactions/consumption/1234567", bearer: bearer, body: body)
            #expect(unknown.status == .notFound)
            let kept = try await world.control(.get, "/sandbox/apple/transactions/\(bought.transactionId)/consumption")
            let entries = try #require(kept["consumption"] as? [[String: Any]])
            #expect(entries.map { $0["version"] as? String } == ["v2", "v1"])
            #expect((entries.first?["body"] as? String)?.contains(#""refundPreference":"DECLINE""#) == true)
            let calls = try await world.control(.get, "/sandbox/calls")
            #expect((calls["calls"] as? [String: Int])?["apple.sandbox.consumption"] == 4)
        }
    }
}
