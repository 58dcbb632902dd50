import Foundation
import NIOHTTP1
import Testing

/// Team members in the browser (same suite and stack as ``ConsoleBrowserTests``): invited through the API, they
/// sign in with the form's email and password and see their role; the Team page is an admin's.
extension ConsoleBrowserTests {
    @Test func aSupportMemberSignsInWithEmailAndPasswordAndFindsACustomer() async throws {
        let world = try self.world
        let (customer, _, _) = try await Self.customerWithAccess(world)
        let password = try await Self.member(world, email: "help@example.com", role: "support")
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
