import Foundation
import Testing

/// The browser harness itself: a headless Chromium loads a page and runs its script.
@Suite struct BrowserSmokeTests {
    @Test func aHeadlessChromiumLoadsAPageAndRunsItsScript() async throws {
        try await Browser.with("browser-smoke") { browser in
            let html =
                "<html><body><h1 id=t>hello</h1><script>document.getElementById('t').textContent += ' world'"
                + "</script></body></html>"
            try await browser.open("data:text/html;base64," + Data(html.utf8).base64EncodedString())
            let text = try await browser.text(of: "#t") { $0 == "hello world" }
            #expect(text == "hello world")
        }
    }
}
