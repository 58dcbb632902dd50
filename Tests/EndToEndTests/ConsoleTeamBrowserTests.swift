import Foundation
import NIOHTTP1
import Testing

/// Team members in the browser (same suite and stack as ``ConsoleBrowserTests``): invited through the API, they
/// sign in with the form's email and password and see their role; the Team page is an admin's.
extension ConsoleBrowserTests {
    @Test func aSupportMemberSignsInWithEmailAndPasswordAndFindsACustomer() async throws {
        let world = try self.world
        let (customer, _, _) = try await Self.customerWithAccess(world)
        let (status, body) = try await world.api(
            .POST, "/v1/admin/users", json: ["email": "help@example.com", "role": "support"])
        #expect(status == 201)
        let token = try #require((body as? [String: Any])?["invitation_token"] as? String)
        let password = "a long enough support password"
        let (accepted, _) = try await world.api(
            .POST, "/console/api/invitation", json: ["token": token, "password": password])
        #expect(accepted == 204)
        try await world.browse("console-team-sign-in") { browser in
            try await browser.element("#team-sign-in-app").type(world.appID)
            try await browser.element("#team-sign-in-email").type("help@example.com")
            try await browser.element("#team-sign-in-password").type("not the password")
            try await browser.element("#team-sign-in-submit").click()
            _ = try await browser.text(of: "#team-sign-in-error") { $0.contains("wrong") }
            try await browser.element("#team-sign-in-password").clear()
            try await browser.element("#team-sign-in-password").type(password)
            try await browser.element("#team-sign-in-submit").click()
            _ = try await browser.element("#who", containing: "help@example.com (support)")
            // The Team page is an admin's: no link to it.
            let teamLinkShown = try await browser.execute(
                "return !document.querySelector('#nav [data-section=team]').parentElement.hidden")
            #expect(teamLinkShown as? Bool == false)
            try await world.go(browser, "/customers?query=\(customer)")
            _ = try await browser.element("#search-results a.customer-link", containing: customer)
        }
    }
}
