import Foundation
import HummingbirdTesting
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@Suite("Promotional grants")
struct PromotionalGrantTests {
    static let grants = "/v1/customers/{app_user_id}/grants"
    static let grant = "/v1/customers/{app_user_id}/grants/{grant_id}"

    @Test("A grant is active until revoked; revoking again changes nothing")
    func grantAndRevoke() async throws {
        try await EntitlementsHarness.run { harness in
            let ends = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 7 * 86_400).rounded(.down))
            let created = try await harness.grant("vip", to: "fan", expiresAt: ends, note: "conference raffle")
            #expect(created.status == .created)
            #expect(try created.violations(.post, Self.grants) == [])
            let body = try created.json
            let grant = try #require(body["grant"] as? [String: Any])
            #expect(grant["state"] as? String == "active")
            #expect(grant["entitlement_id"] as? String == "vip")
            #expect(grant["note"] as? String == "conference raffle")
            #expect(grant["expires_at"] as? String == ends.formatted(.iso8601))
            let grantID = try #require(grant["grant_id"] as? String)
            let customer = try #require(body["customer"] as? [String: Any])
            let entitlements = try #require(customer["entitlements"] as? [String: Any])
            let vip = try #require(entitlements["vip"] as? [String: Any])
            #expect(vip["active"] as? Bool == true)
            #expect(vip["source"] as? String == "promotional")

            let info = try await harness.info("fan")
            #expect(info.entitlements["vip"]?.active == true)
            #expect(info.entitlements["vip"]?.expiresAt == ends)

            let revoked = try await harness.send(.delete, "/v1/customers/fan/grants/\(grantID)")
            #expect(revoked.status == .ok)
            #expect(try revoked.violations(.delete, Self.grant) == [])
            let after = try TestJSON.decode(CustomerInfo.self, revoked.body.readableBytesView)
            #expect(after.entitlements["vip"]?.active == false)
            let again = try await harness.send(.delete, "/v1/customers/fan/grants/\(grantID.uppercased())")
            #expect(again.status == .ok)
            #expect(try await harness.info("fan").entitlements["vip"]?.active == false)
            #expect(
                try await harness.count(
                    """
                    SELECT count(*) FROM entitlements.events WHERE app_id = \(harness.appID)
                    AND type IN ('promotional_grant', 'promotional_grant_revoked')
                    """) == 2)
        }
    }

    @Test("A grant must end in the future and name a valid entitlement")
    func invalidGrants() async throws {
        try await EntitlementsHarness.run { harness in
            let past = try await harness.grant("vip", to: "fan", expiresAt: Date().addingTimeInterval(-60))
            #expect(past.status == .unprocessableContent)
            #expect(past.problemCode == "validation_failed")
            #expect(try past.violations(.post, Self.grants) == [])
            let pointers = (try past.json["errors"] as? [[String: Any]])?.compactMap { $0["pointer"] as? String }
            #expect(pointers == ["/expires_at"])
            let badID = try await harness.grant("not an id", to: "fan")
            #expect(badID.status == .unprocessableContent)
            #expect(try await harness.history("fan").status == .notFound)  // nothing was created
        }
    }

    @Test("Unknown grants, other customers' grants and public keys are refused")
    func refusals() async throws {
        try await EntitlementsHarness.run { harness in
            let created = try await harness.grant("vip", to: "fan")
            let grantID = try #require((try created.json["grant"] as? [String: Any])?["grant_id"] as? String)
            for (user, id) in [("fan", UUID().uuidString), ("fan", "not-a-uuid"), ("other", grantID)] {
                let response = try await harness.send(.delete, "/v1/customers/\(user)/grants/\(id)")
                #expect(response.status == .notFound)
                #expect(response.problemCode == "grant_not_found")
                #expect(try response.violations(.delete, Self.grant) == [])
            }
            let publicGrant = try await harness.grant("vip", to: "fan", kind: .public)
            #expect(publicGrant.status == .forbidden)
            #expect(publicGrant.problemCode == "secret_key_required")
            #expect(try publicGrant.violations(.post, Self.grants) == [])
            let publicRevoke = try await harness.send(.delete, "/v1/customers/fan/grants/\(grantID)", kind: .public)
            #expect(publicRevoke.status == .forbidden)
            #expect(try publicRevoke.violations(.delete, Self.grant) == [])
            #expect(try await harness.info("fan").entitlements["vip"]?.active == true)
        }
    }
}
