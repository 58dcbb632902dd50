import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The gateway answers an app launch (`GET /v1/customers/{id}`) from the info the entitlements service stored, and
/// sends everything else to the service: a client cannot tell the two answers apart, and never reads info older than
/// the last change.
@Suite struct StoredCustomerReadTests {
    /// What the gateway's stored reads did: answered from the stored info, or sent to the service.
    final class Outcomes: Sendable {
        private let box = NIOLockedValueBox((answered: 0, service: 0))
        func record(_ answered: Bool) {
            box.withLockedValue { answered ? ($0.answered += 1) : ($0.service += 1) }
        }
        var answered: Int { box.withLockedValue(\.answered) }
        var service: Int { box.withLockedValue(\.service) }
    }

    static let grant = Data(#"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#.utf8)
    static let logger = Logger(label: "stored-read-tests")

    static func run(_ body: @Sendable (GatewayHarness, GatewayHarness.TestApp, Outcomes) async throws -> Void)
        async throws
    {
        let outcomes = Outcomes()
        var hooks = GatewayHooks()
        hooks.storedReads = { outcomes.record($0) }
        // Keys remembered (the harness's default is not to): the channel path, where stored reads are answered, takes
        // only requests whose key it knows.
        try await GatewayHarness.run(environment: ["SHOPKEEPER_KEY_CACHE_SECONDS": "60"], hooks: hooks) { gateway in
            let app = try await gateway.createApp("Stored reads")
            try await body(gateway, app, outcomes)
        }
    }

    /// Reads `path` until the gateway answered a read from the stored info (the first reads of a loop go to the
    /// service while its database connection is made); returns that answer.
    static func storedAnswer(
        _ gateway: GatewayHarness, _ path: String, bearer: String, outcomes: Outcomes, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var answer: TestResponse?
        try await eventually("a read answered from stored info") {
            let before = outcomes.answered
            answer = try await gateway.send(.get, path, bearer: bearer, headers: headers)
            return outcomes.answered > before
        }
        return try #require(answer)
    }

    @Test("A stored read answers what the service answers: the same bytes, entity tag and headers; 304 on a match")
    func theSameAnswerAsTheService() async throws {
        try await Self.run { gateway, app, outcomes in
            let path = "/v1/customers/launch"
            let granted = try await gateway.send(.post, "\(path)/grants", bearer: app.secretKey.key, json: Self.grant)
            #expect(granted.status == .created)
            let stored = try await Self.storedAnswer(gateway, path, bearer: app.publicKey.key, outcomes: outcomes)
            // A query string is not taken up here: the service answers.
            let before = (outcomes.answered, outcomes.service)
            let fromService = try await gateway.send(.get, path + "?from=service", bearer: app.publicKey.key)
            #expect((outcomes.answered, outcomes.service) == before)

            #expect(stored.status == .ok)
            #expect(String(buffer: stored.body) == String(buffer: fromService.body))
            #expect(stored.headers[.eTag] == fromService.headers[.eTag])
            let names = { (response: TestResponse) in
                Set(response.headers.map(\.name.canonicalName)).subtracting(["x-request-id", "date"])
            }
            #expect(names(stored) == names(fromService))
            for name in names(stored) {
                #expect(
                    stored.headers[HTTPField.Name(name)!] == fromService.headers[HTTPField.Name(name)!], "\(name)")
            }
            let info = try TestJSON.decode(CustomerInfo.self, stored.body.readableBytesView)
            #expect(info.appUserID == "launch")
            #expect(info.entitlements["vip"]?.active == true)

            let etag = try #require(stored.headers[.eTag])
            let notModified = try await Self.storedAnswer(
                gateway, path, bearer: app.publicKey.key, outcomes: outcomes, headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.eTag] == etag)
            #expect(notModified.headers[.contentType] == nil)
            #expect(notModified.body.readableBytes == 0)
        }
    }

    @Test("A change is read at once: the stored info it made stale is not answered, the service renders it anew")
    func aChangeIsReadAtOnce() async throws {
        try await Self.run { gateway, app, outcomes in
            let path = "/v1/customers/changing"
            _ = try await gateway.send(.post, "\(path)/grants", bearer: app.secretKey.key, json: Self.grant)
            let first = try await Self.storedAnswer(gateway, path, bearer: app.publicKey.key, outcomes: outcomes)
            let granted = try await gateway.send(
                .post, "\(path)/grants", bearer: app.secretKey.key,
                json: Data(#"{"entitlement_id":"gold","expires_at":"2099-01-01T00:00:00Z"}"#.utf8))
            #expect(granted.status == .created)
            // Every read from now on, from wherever it is answered, shows the change.
            for _ in 0..<20 {
                let after = try await gateway.send(.get, path, bearer: app.publicKey.key)
                let info = try TestJSON.decode(CustomerInfo.self, after.body.readableBytesView)
                #expect(info.entitlements["gold"]?.active == true)
                #expect(after.headers[.eTag] != first.headers[.eTag])
            }
            let stored = try await Self.storedAnswer(gateway, path, bearer: app.publicKey.key, outcomes: outcomes)
            #expect(try TestJSON.decode(CustomerInfo.self, stored.body.readableBytesView).entitlements["gold"] != nil)
        }
    }

    @Test("Many launches at once each get their own customer, whichever path answers them")
    func concurrentLaunchesGetTheirOwnCustomer() async throws {
        try await Self.run { gateway, app, outcomes in
            let customers = (0..<8).map { "many-\($0)" }
            for (index, customer) in customers.enumerated() {
                let granted = try await gateway.send(
                    .post, "/v1/customers/\(customer)/grants", bearer: app.secretKey.key,
                    json: Data(#"{"entitlement_id":"e\#(index)","expires_at":"2099-01-01T00:00:00Z"}"#.utf8))
                #expect(granted.status == .created)
            }
            _ = try await Self.storedAnswer(
                gateway, "/v1/customers/\(customers[0])", bearer: app.publicKey.key, outcomes: outcomes)
            let answeredBefore = outcomes.answered
            let asked = (0..<96).map { $0 % 10 < 8 ? customers[$0 % 10] : "nobody-\($0 % 10)" }
            try await withThrowingTaskGroup(of: (String, TestResponse).self) { group in
                for customer in asked {
                    group.addTask {
                        (customer, try await gateway.send(.get, "/v1/customers/\(customer)", bearer: app.publicKey.key))
                    }
                }
                for try await (customer, response) in group {
                    #expect(response.status == .ok)
                    let info = try TestJSON.decode(CustomerInfo.self, response.body.readableBytesView)
                    #expect(info.appUserID == customer)
                    if let index = customers.firstIndex(of: customer) {
                        #expect(Set(info.entitlements.keys) == ["e\(index)"], "\(customer)")
                    } else {
                        #expect(info.entitlements.isEmpty, "\(customer)")
                    }
                }
            }
            #expect(outcomes.answered > answeredBefore)
        }
    }

    @Test("An unknown id, another app's customer and an escaped id are the service's to answer")
    func whatTheServiceAnswers() async throws {
        try await Self.run { gateway, app, outcomes in
            _ = try await gateway.send(
                .post, "/v1/customers/mine/grants", bearer: app.secretKey.key, json: Self.grant)
            _ = try await Self.storedAnswer(
                gateway, "/v1/customers/mine", bearer: app.publicKey.key, outcomes: outcomes)

            let unknown = try await gateway.send(.get, "/v1/customers/nobody", bearer: app.publicKey.key)
            #expect(unknown.status == .ok)
            #expect(try TestJSON.decode(CustomerInfo.self, unknown.body.readableBytesView).entitlements.isEmpty)

            // Another app's key reads nothing of this app's customer.
            let other = try await gateway.createApp("Other")
            let foreign = try await gateway.send(.get, "/v1/customers/mine", bearer: other.publicKey.key)
            #expect(foreign.status == .ok)
            #expect(try TestJSON.decode(CustomerInfo.self, foreign.body.readableBytesView).entitlements.isEmpty)

            let answered = outcomes.answered
            let escaped = try await gateway.send(.get, "/v1/customers/m%69ne", bearer: app.publicKey.key)
            #expect(escaped.status == .ok)
            #expect(outcomes.answered == answered)
            let tooLong = try await gateway.send(
                .get, "/v1/customers/" + String(repeating: "x", count: 257), bearer: app.publicKey.key)
            #expect(tooLong.status == .unprocessableContent)
            #expect(outcomes.answered == answered)
        }
    }

    @Test("A launch after a while shows the time of the read and records it, in a batch")
    func aLaunchAfterAWhileRecordsLastSeen() async throws {
        try await Self.run { gateway, app, outcomes in
            let path = "/v1/customers/returning"
            _ = try await gateway.send(.post, "\(path)/grants", bearer: app.secretKey.key, json: Self.grant)
            _ = try await Self.storedAnswer(gateway, path, bearer: app.publicKey.key, outcomes: outcomes)
            let appID = app.info.appID
            try await TestDatabase.withClient { client in
                try await client.query(
                    """
                    UPDATE entitlements.customers SET last_seen = now() - interval '1 day'
                    WHERE customer_id = (SELECT customer_id FROM entitlements.aliases
                                         WHERE app_id = \(appID) AND app_user_id = 'returning')
                    """, logger: Self.logger)
            }
            let readAt = Date()
            let launch = try await Self.storedAnswer(gateway, path, bearer: app.publicKey.key, outcomes: outcomes)
            let shown = try TestJSON.decode(CustomerInfo.self, launch.body.readableBytesView).lastSeen
            #expect(abs(shown.timeIntervalSince(readAt)) < 60)
            try await eventually("the launch's last_seen is written") {
                try await TestDatabase.withClient { client in
                    let rows = try await client.query(
                        """
                        SELECT cu.last_seen > now() - interval '1 hour' FROM entitlements.customers cu
                        JOIN entitlements.aliases a ON a.customer_id = cu.customer_id
                        WHERE a.app_id = \(appID) AND a.app_user_id = 'returning'
                        """, logger: Self.logger)
                    for try await recent in rows.decode(Bool.self) { return recent }
                    return false
                }
            }
        }
    }

    @Test(
        "Only a plain /v1/customers/{id} is taken up",
        arguments: [
            ("/v1/customers/abc", "abc"), ("/v1/customers/a.b-c_d~e@f:g", "a.b-c_d~e@f:g"), ("/v1/customers/", nil),
            ("/v1/customers/a%20b", nil), ("/v1/customers/a/restore", nil), ("/v1/customers/..", nil),
            ("/v1/customers/.", nil), ("/v1/customersx/a", nil), ("/v1/customers/a+b", nil),
        ])
    func plainPaths(path: String, id: String?) {
        #expect(StoredCustomerReads.appUserID(in: path[...]).map(String.init) == id)
    }
}
