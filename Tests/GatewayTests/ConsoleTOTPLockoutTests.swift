import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// Codes tried while enrolling a second factor are limited as failed sign-ins are, with the count in PostgreSQL: two
/// gateway replicas on one database, tried at once, check no more codes than the limit between them.
@Suite struct ConsoleTOTPLockoutTests {
    @Test func codesTriedWhileEnrollingLockEnrollingAcrossReplicas() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment, replicas: 2) { gateway in
            let app = try await gateway.createApp("TOTP tries")
            let (login, _) = try await gateway.teamLogin("eve@example.com", as: .viewer, app: app)
            let begun = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.change)
            #expect(begun.status == .created)
            let enrollment = try TestJSON.decode(ConsoleTOTPEnrollment.self, begun.body.readableBytesView)
            let secret = try #require(ConsoleTeamTests.base32Decode(enrollment.secret))
            let wrong = Self.wrongCode(secret: secret)

            // Ten wrong codes at once, half through each replica: the limit (three in the test's settings) is
            // checked, the other seven are refused before their code is looked at.
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<10 {
                    let client = index % 2 == 0 ? gateway.client : gateway.replica
                    group.addTask { try await Self.confirm(wrong, through: client, login).problemCode }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == "totp_invalid" }.count == 3, "\(answers)")
            #expect(answers.filter { $0 == "totp_locked" }.count == 7, "\(answers)")

            // Locked: the right code too, and a new secret, on either replica; the answer says for how long.
            let right = try await Self.confirm(
                TOTP.code(secret: secret, step: TOTP.step(at: Date())), through: gateway.replica, login)
            #expect(right.status == .tooManyRequests)
            #expect(right.problemCode == "totp_locked")
            let retryAfter = Int(right.headers[.retryAfter] ?? "") ?? 0
            #expect(retryAfter > 800 && retryAfter <= 900)
            #expect(try right.violations(.put, "/console/api/session/totp") == [])
            let again = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.change)
            #expect(again.problemCode == "totp_locked")
            #expect(try again.violations(.post, "/console/api/session/totp") == [])
            // Signing in is counted apart: the password still signs in.
            #expect(try await gateway.signInAnswer(email: "eve@example.com", appID: app.info.appID).status == .created)

            // Once the lock is over (moved into the past here), the right code confirms and clears the count.
            try await GatewayHarness.database(
                "UPDATE gateway.console_users SET totp_locked_until = now() - interval '1 second'")
            let confirmed = try await Self.confirm(
                TOTP.code(secret: secret, step: TOTP.step(at: Date())), through: gateway.client, login)
            #expect(confirmed.status == .noContent)
            let list = try await gateway.send(.get, "/v1/admin/users", bearer: app.secretKey.key)
            #expect(
                try TestJSON.decode(ConsoleUserList.self, list.body.readableBytesView).users.first?.totpEnabled == true)
            // A factor on already is not replaced by a new secret (which no confirmation could turn on).
            let enabled = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.change)
            #expect(enabled.status == .conflict)
            #expect(enabled.problemCode == "totp_enabled")
            #expect(try enabled.violations(.post, "/console/api/session/totp") == [])
        }
    }

    @Test func twoWrongCodesThenARightOneNeverLock() async throws {
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("TOTP typo")
            let (login, _) = try await gateway.teamLogin("max@example.com", as: .support, app: app)
            let begun = try await gateway.send(.post, "/console/api/session/totp", bearer: nil, headers: login.change)
            let enrollment = try TestJSON.decode(ConsoleTOTPEnrollment.self, begun.body.readableBytesView)
            let secret = try #require(ConsoleTeamTests.base32Decode(enrollment.secret))
            for _ in 0..<2 {
                let wrong = try await Self.confirm(Self.wrongCode(secret: secret), through: gateway.client, login)
                #expect(wrong.problemCode == "totp_invalid")
            }
            let right = try await Self.confirm(
                TOTP.code(secret: secret, step: TOTP.step(at: Date())), through: gateway.client, login)
            #expect(right.status == .noContent)
        }
    }

    /// `PUT /console/api/session/totp` with `code`, through one replica.
    static func confirm(_ code: String, through client: any TestClientProtocol, _ login: ConsoleLogin) async throws
        -> TestResponse
    {
        var headers = login.change
        headers[.contentType] = "application/json"
        return try await client.execute(
            uri: "/console/api/session/totp", method: .put, headers: headers,
            body: ByteBuffer(bytes: try TestJSON.encode(ConsoleTOTPConfirmRequest(code: code))))
    }

    /// A six-digit code no step near now accepts.
    static func wrongCode(secret: [UInt8]) -> String {
        let now = TOTP.step(at: Date())
        let near = Set((now - 2...now + 2).map { TOTP.code(secret: secret, step: $0) })
        let candidate = (0..<1_000_000).lazy.map { String(format: "%06d", $0) }.first { !near.contains($0) }
        return candidate ?? "000000"
    }
}
