import Foundation
import Hummingbird
import HummingbirdTesting
import ShopkeeperTestSupport
import Testing

/// The browser harness itself: each headless browser loads a page over HTTP and runs its script.
@Suite struct BrowserSmokeTests {
    @Test(arguments: Browser.Kind.allCases)
    func aHeadlessBrowserLoadsAPageAndRunsItsScript(_ kind: Browser.Kind) async throws {
        let router = Router()
        router.get("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: "<html><body><h1 id=t>hello</h1><script>"
                            + "document.getElementById('t').textContent += ' world'</script></body></html>")))
        }
        try await Application(router: router).testLive { client in
            try await Browser.with("browser-smoke", in: kind) { browser in
                try await browser.open("http://127.0.0.1:\(client.port ?? 0)/")
                let text = try await browser.text(of: "#t") { $0 == "hello world" }
                #expect(text == "hello world")
                #expect(try await browser.execute("return navigator.userAgent") as? String != nil)
            }
        }
    }
}
