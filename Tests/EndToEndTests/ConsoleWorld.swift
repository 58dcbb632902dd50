import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperTestSupport
import Testing

/// One stack for the whole console suite: the sandbox store, every service with content, the gateway serving the
/// repository's `Console/` folder, the demo shop seeded and connected with the CLI and given some weeks of sales
/// (`shopkeeper seed sales`), and one headless browser of each kind (Chromium and Firefox). Started once by ``ConsoleWorldTrait`` around the suite and
/// reached by its tests through ``current``.
final class ConsoleWorld: Sendable {
    @TaskLocal static var current: ConsoleWorld?

    static let operatorKey = "op_console_operator_key_0123456789"

    let sandbox: ServiceProcess
    let stack: GatewayStack
    let browsers: [Browser.Kind: Browser]
    let appID: String
    let publicKey: String
    let secretKey: String
    let sandboxState: URL

    var gatewayURL: String { stack.gateway.baseURL }
    var consoleURL: String { stack.gateway.baseURL + "/console" }

    private init(
        sandbox: ServiceProcess, stack: GatewayStack, browsers: [Browser.Kind: Browser], appID: String,
        publicKey: String,
        secretKey: String, sandboxState: URL
    ) {
        self.sandbox = sandbox
        self.stack = stack
        self.browsers = browsers
        self.appID = appID
        self.publicKey = publicKey
        self.secretKey = secretKey
        self.sandboxState = sandboxState
    }

    /// The repository's `Console/` folder (the pages under test).
    static var consoleFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Console").path
    }

    static func start(databaseURL: String) async throws -> ConsoleWorld {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let sandbox = try await ServiceProcess.sandboxStore(state: state)
        let stack = try await GatewayStack.start(
            databaseURL: databaseURL, operatorKey: operatorKey,
            verifierEnvironment: sandbox.storeEnvironment(state: state),
            entitlementsEnvironment: [
                // The webhook test's receiver is on loopback; a failing delivery becomes a dead letter in seconds.
                "SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS": "true", "SHOPKEEPER_WEBHOOK_GIVE_UP_HOURS": "0.0005",
                "SHOPKEEPER_WEBHOOK_RETRY_BASE_SECONDS": "0.2", "SHOPKEEPER_WEBHOOK_POLL_MS": "100",
            ],
            // Every test signs in from 127.0.0.1: more sign-ins than one client's default burst.
            gatewayEnvironment: [
                "SHOPKEEPER_CONSOLE_DIR": consoleFolder, "SHOPKEEPER_CONSOLE_SIGN_IN_RATE": "100/1000",
            ],
            content: true)

        let envFile = state.appendingPathComponent("local.env")
        let shop = try SeededDemoShop.seed(
            gatewayURL: stack.gateway.baseURL, operatorKey: operatorKey, sandboxURL: sandbox.baseURL, envFile: envFile,
            content: true)
        let environment = shop.cliEnvironment.merging(["SHOPKEEPER_PUBLIC_KEY": shop.publicKey]) { _, new in new }
        let sales = try runCLI(["seed", "sales", "--customers", "8", "--weeks", "6"], environment: environment)
        guard sales.status == 0 else { throw Browser.Failure("seed sales failed: \(sales.output)") }

        var browsers: [Browser.Kind: Browser] = [:]
        for kind in Browser.Kind.allCases { browsers[kind] = try await Browser.start(kind) }
        return ConsoleWorld(
            sandbox: sandbox, stack: stack, browsers: browsers, appID: shop.appID, publicKey: shop.publicKey,
            secretKey: shop.secretKey, sandboxState: state)
    }

    /// Quits the browsers and stops every process (all of them, even when one fails to stop gracefully).
    func stop() async throws {
        for browser in browsers.values { await browser.quit() }
        defer { try? FileManager.default.removeItem(at: sandboxState) }
        do {
            try await stack.stop()
        } catch {
            _ = try? await sandbox.terminate()
            throw error
        }
        try await sandbox.stop()
    }

    /// Runs one test's browsing in the browser of `kind`, from a signed-out console page in a wide window; on
    /// failure the harness's screenshot and page text are written as `<name>.png` and `<name>.txt` (with the
    /// browser's name after `name` for Firefox).
    func browse(
        _ name: String, in kind: Browser.Kind = .chromium, width: Int = 1280, height: Int = 900,
        _ body: (Browser) async throws -> Void
    ) async throws {
        guard let browser = browsers[kind] else { throw Browser.Failure("no \(kind.rawValue) in the console world") }
        let name = kind == .chromium ? name : "\(name)-\(kind.rawValue)"
        do {
            try await browser.setWindowSize(width: width, height: height)
            try await browser.open(consoleURL)
            try await browser.deleteCookies()
            try await browser.open(consoleURL)
            try await body(browser)
        } catch {
            await browser.saveEvidence(name)
            throw error
        }
    }

    /// Signs in with the app's secret key through the form, and waits for the overview.
    func signIn(_ browser: Browser) async throws {
        let key = try await browser.element("#sign-in-key")
        try await key.click()
        try await key.type(secretKey)
        try await browser.element("#sign-in-submit").click()
        _ = try await browser.element("#app-name", containing: "Demo Garden")
    }

    /// Goes to a console route (`/customers/x`) and waits for its page to finish loading; answers its heading.
    @discardableResult
    func go(_ browser: Browser, _ route: String) async throws -> String {
        let before = try await browser.execute(Self.renders) as? Int ?? 0
        // The same route again is rendered again (the console re-renders on hashchange).
        try await browser.execute(
            """
            if (location.hash === '#' + arguments[0]) window.dispatchEvent(new HashChangeEvent('hashchange'));
            else location.hash = arguments[0];
            """, [route])
        return try await waitForPage(browser, after: before)
    }

    /// Waits until the page shown has loaded (no section is busy) and is headed `heading`.
    func waitForPage(_ browser: Browser, _ heading: String) async throws {
        try await browser.waitFor("the page '\(heading)'") { () async throws -> Bool? in
            try await self.loadedHeading(browser) == heading ? true : nil
        }
    }

    /// Waits until a page rendered after the `before`th has loaded, and answers its heading.
    @discardableResult
    func waitForPage(_ browser: Browser, after before: Int) async throws -> String {
        try await browser.waitFor("a page to load") { () async throws -> String? in
            let renders = try await browser.execute(Self.renders) as? Int ?? 0
            return renders > before ? try await self.loadedHeading(browser) : nil
        }
    }

    /// How many pages the console has rendered since it was loaded (`data-rendered` of its view).
    static let renders = "return Number(document.getElementById('view').dataset.rendered || 0)"

    /// The heading of the page shown once it has loaded; `nil` while it loads.
    private func loadedHeading(_ browser: Browser) async throws -> String? {
        try await browser.execute(
            """
            const page = document.querySelector('#view .page');
            if (!page || page.getAttribute('aria-busy') === 'true') return null;
            const h1 = page.querySelector('h1');
            return h1 ? h1.textContent : null;
            """) as? String
    }

    // MARK: The API, as a script would call it

    /// Calls the gateway with the app's secret key; answers the status and the JSON body.
    func api(_ method: HTTPMethod, _ path: String, json: Any? = nil, key: String? = nil) async throws -> (
        status: Int, body: Any?
    ) {
        var request = HTTPClientRequest(url: gatewayURL + path)
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(key ?? secretKey)")
        if let json {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        let data = Data(bytes.readableBytesView)
        return (Int(response.status.code), data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data))
    }

    /// A JSON object from the API; fails the test on any status but 2xx.
    func object(_ path: String) async throws -> [String: Any] {
        let (status, body) = try await api(.GET, path)
        guard (200..<300).contains(status), let object = body as? [String: Any] else {
            throw Browser.Failure("GET \(path) answered \(status): \(String(describing: body))")
        }
        return object
    }
}

/// Starts one ``ConsoleWorld`` on a fresh database around the whole suite it is attached to.
struct ConsoleWorldTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await TestDatabase.withFreshDatabase { database in
            let world = try await ConsoleWorld.start(databaseURL: database.url)
            do {
                try await ConsoleWorld.$current.withValue(world) { try await function() }
            } catch {
                try? await world.stop()
                throw error
            }
            // Seen twice (2026-11-28, a loaded machine): after a long console session the verifier did not finish its
            // graceful shutdown within 30 s (killed). Not what these tests check (GracefulShutdownTests does); known
            // and open, so it is recorded here without failing the console's suite. Any other failure to stop fails.
            // Since then a service cancels what is left after `SHOPKEEPER_SHUTDOWN_GRACE_SECONDS` (15 s, logging a
            // warning) and the HTTP client stops after the verifier's jobs, so this should no longer be seen.
            try await withKnownIssue(
                "the verifier's graceful shutdown can hang after a long console session under load",
                isIntermittent: true
            ) {
                try await world.stop()
            } matching: { issue in
                "\(issue)".contains("shopkeeper-verifier ignored SIGTERM")
            }
        }
    }
}

extension Trait where Self == ConsoleWorldTrait {
    /// The console suite's stack, started once for all its tests.
    static var consoleWorld: Self { ConsoleWorldTrait() }
}
