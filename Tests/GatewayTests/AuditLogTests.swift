import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The audit log: every admin change, by key, console session or operator, recorded once by the gateway with who,
/// what and how it ended; each app reads its own.
@Suite struct AuditLogTests {
    static let path = "/v1/admin/audit-log"
    static let grant = Data(#"{"entitlement_id":"vip","expires_at":"2099-01-01T00:00:00Z"}"#.utf8)

    func log(_ gateway: GatewayHarness, key: String, query: String = "") async throws -> AuditLogPage {
        let answer = try await gateway.send(.get, Self.path + query, bearer: key)
        #expect(answer.status == .ok, "\(String(buffer: answer.body))")
        #expect(try answer.violations(.get, Self.path) == [])
        return try TestJSON.decode(AuditLogPage.self, answer.body.readableBytesView)
    }

    @Test func changesAreRecordedWithWhoWhatAndTheOutcome() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Audited")
            let created = try await gateway.send(
                .post, "/v1/customers/erin/grants", bearer: app.secretKey.key, json: Self.grant)
            #expect(created.status == .created)
            let grantID = try #require(
                (try TestJSON.object(created.body.readableBytesView)["grant"] as? [String: Any])?["grant_id"] as? String
            )

            let login = try await gateway.signIn(key: app.secretKey.key)
            let revoked = try await gateway.send(
                .delete, "/v1/customers/erin/grants/\(grantID)", bearer: nil, headers: login.change)
            #expect(revoked.status == .ok)
            let missing = try await gateway.send(
                .delete, "/v1/customers/erin/grants/\(UUID().uuidString)", bearer: app.secretKey.key)
            #expect(missing.status == .notFound)
            // Refused before it reached anything (no CSRF token): not an action.
            let refused = try await gateway.send(
                .post, "/v1/customers/erin/grants", bearer: nil, json: Self.grant, headers: login.cookie)
            #expect(refused.status == .forbidden)
            // Reads and a public key's calls are not admin actions.
            _ = try await gateway.send(.get, "/v1/customers/erin/history", bearer: app.secretKey.key)
            _ = try await gateway.send(.get, "/v1/customers/erin", bearer: app.publicKey.key)

            // (The harness made the app's keys with the operator key: the oldest two entries. The console's sign-in is
            // its own test's.)
            let entries = Array(
                try await log(gateway, key: app.secretKey.key).entries.filter { !$0.action.hasPrefix("console.") }
                    .prefix(3))
            #expect(
                entries.map(\.action) == [
                    "promotional_grant.revoke", "promotional_grant.revoke", "promotional_grant.create",
                ])
            #expect(entries.map(\.status) == [404, 200, 201])
            let byKey = try #require(entries.last)
            #expect(byKey.actor == .secretKey)
            #expect(byKey.keyID == app.secretKey.info.keyID)
            #expect(byKey.sessionID == nil)
            #expect(byKey.method == "POST")
            #expect(byKey.path == "/v1/customers/erin/grants")
            #expect(byKey.targets == ["app_user_id": "erin"])
            #expect(byKey.summary == "Granted a promotional entitlement to erin")
            #expect(byKey.requestID == created.headers[.requestID])
            let bySession = entries[1]
            #expect(bySession.sessionID == login.info.sessionID)
            #expect(bySession.keyID == app.secretKey.info.keyID)
            #expect(bySession.targets == ["app_user_id": "erin", "grant_id": grantID])
            #expect(bySession.summary == "Revoked promotional grant \(grantID) of erin")
        }
    }

    @Test func theOperatorsCatalogAndKeyChangesAreRecordedAndDryRunsAreNot() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Operated")
            let catalog = try TestJSON.encode(CatalogDocument(products: [product("lamp")]))
            let dryRun = try await gateway.send(
                .put, "/v1/admin/catalog?dry_run=true", bearer: app.secretKey.key, json: catalog)
            #expect(dryRun.status == .ok)
            #expect(
                try await gateway.send(.put, "/v1/admin/catalog", bearer: app.secretKey.key, json: catalog).status
                    == .ok)
            let operatorLogin = try await gateway.signIn(key: GatewayHarness.operatorKey, appID: app.info.appID)
            let key = try await gateway.send(
                .post, "/operator/v1/apps/\(app.info.appID)/keys", bearer: nil,
                json: try TestJSON.encode(CreateKeyRequest(kind: .public)), headers: operatorLogin.change)
            #expect(key.status == .created)
            let settings = try await gateway.send(
                .put, "/v1/admin/entitlements/settings", bearer: nil, json: Data(#"{"device_limit":3}"#.utf8),
                headers: operatorLogin.change)
            #expect(settings.status == .ok, "\(String(buffer: settings.body))")

            let entries = try await log(gateway, key: app.secretKey.key).entries.filter {
                !$0.action.hasPrefix("console.")
            }
            #expect(
                entries.map(\.action) == [
                    "settings.update", "key.create", "catalog.import", "key.create", "key.create",
                ])
            #expect(entries[0].actor == .operator)
            #expect(entries[0].keyID == nil)
            #expect(entries[0].sessionID == operatorLogin.info.sessionID)
            #expect(entries[1].actor == .operator)
            #expect(entries[1].targets == ["app_id": app.info.appID])
            #expect(entries[2].actor == .secretKey)
            // The harness made the app's first two keys with the operator key.
            #expect(entries[3...].allSatisfy { $0.actor == .operator && $0.sessionID == nil })
        }
    }

    @Test func consoleSignInsSwitchesAndSignOutsAreRecorded() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("Signed A")
            let b = try await gateway.createApp("Signed B")
            let login = try await gateway.signIn(key: a.secretKey.key)
            let out = try await gateway.send(.delete, "/console/api/session", bearer: nil, headers: login.change)
            #expect(out.status == .noContent)
            let operatorLogin = try await gateway.signIn(key: GatewayHarness.operatorKey, appID: a.info.appID)
            let switched = try await gateway.send(
                .put, "/console/api/session", bearer: nil,
                json: try TestJSON.encode(ConsoleSwitchAppRequest(appID: b.info.appID)), headers: operatorLogin.change)
            #expect(switched.status == .ok, "\(String(buffer: switched.body))")
            // A wrong key names no app: nothing to record in any app's log.
            #expect(try await gateway.signInAnswer(key: "sk_not_a_key").status == .unauthorized)

            let inA = try await log(gateway, key: a.secretKey.key).entries.filter { $0.action.hasPrefix("console.") }
            #expect(
                inA.map(\.action) == ["console.switch_app", "console.sign_in", "console.sign_out", "console.sign_in"])
            #expect(inA.count == 4)
            if inA.count == 4 {
                #expect(inA[3].actor == .secretKey && inA[3].keyID == a.secretKey.info.keyID)
                #expect(inA[3].sessionID == login.info.sessionID && inA[2].sessionID == login.info.sessionID)
                #expect(inA[3].status == 201 && inA[2].status == 204)
                #expect(inA[1].actor == .operator && inA[1].sessionID == operatorLogin.info.sessionID)
                #expect(inA[0].summary == "Switched the console from \(a.info.appID) to \(b.info.appID)")
            }
            let inB = try await log(gateway, key: b.secretKey.key).entries.filter { $0.action.hasPrefix("console.") }
            #expect(inB.map(\.action) == ["console.switch_app"])
            #expect(inB.first?.sessionID == operatorLogin.info.sessionID)
        }
    }

    @Test func eachAppReadsItsOwnLogInPagesWithASecretKey() async throws {
        try await GatewayHarness.run { gateway in
            let a = try await gateway.createApp("Paged A")
            let b = try await gateway.createApp("Paged B")
            for user in ["u1", "u2", "u3"] {
                _ = try await gateway.send(
                    .post, "/v1/customers/\(user)/grants", bearer: a.secretKey.key, json: Self.grant)
            }
            let first = try await log(gateway, key: a.secretKey.key, query: "?limit=2")
            #expect(first.entries.map { $0.targets["app_user_id"] } == ["u3", "u2"])
            let next = try #require(first.nextBefore)
            let second = try await log(gateway, key: a.secretKey.key, query: "?limit=2&before=\(next)")
            #expect(second.entries.first?.targets["app_user_id"] == "u1")
            #expect(
                !(try await log(gateway, key: b.secretKey.key).entries.contains { $0.targets["app_user_id"] != nil }))

            let publicKey = try await gateway.send(.get, Self.path, bearer: a.publicKey.key)
            #expect(publicKey.status == .forbidden)
            for bad in ["?limit=0", "?limit=201", "?before=x", "?before=0"] {
                let refused = try await gateway.send(.get, Self.path + bad, bearer: a.secretKey.key)
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.problemCode == "invalid_query")
                #expect(try refused.violations(.get, Self.path) == [])
            }
        }
    }

    @Test func aRetryUnderTheSameIdempotencyKeyIsOneEntry() async throws {
        try await GatewayHarness.run { gateway in
            let app = try await gateway.createApp("Retried")
            let headers: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "retry-\(UUID().uuidString)"]
            for _ in 0..<3 {
                _ = try await gateway.send(
                    .post, "/v1/admin/entitlements/webhook-secret", bearer: app.secretKey.key, headers: headers)
            }
            let entries = try await log(gateway, key: app.secretKey.key).entries.filter {
                $0.action == "webhook_secret.rotate"
            }
            #expect(entries.count == 1)
        }
    }

    @Test func everyAuditedActionIsADocumentedChange() throws {
        for action in AuditedActions.all {
            let allowed = PublicRoutes.shopkeeper.allowedMethods(
                for: action.template.path.replacingOccurrences(
                    of: #"\{[a-z_]+\}"#, with: "x", options: .regularExpression))
            #expect(allowed?.contains(action.method) == true, "\(action.method) \(action.template.path)")
            #expect(action.method != .get && action.method != .head)
        }
    }
}
