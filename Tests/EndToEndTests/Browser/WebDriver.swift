import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A real browser, headless, driven over W3C WebDriver: Chromium through Debian's `chromedriver` (`chromium-driver`),
/// or Firefox (`firefox-esr`) through Marionette, which speaks the same commands (``MarionetteWire``). The console's
/// pages run in it against the real stack. `scripts/test` installs the packages when missing.
final class Browser: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The browsers the console is held to.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case chromium
        case firefox

        var testDescription: String { rawValue }
    }

    /// The key W3C WebDriver names an element reference by.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// How commands reach the browser.
    private enum Wire {
        case chromeDriver(driver: Process, url: String, sessionID: String)
        case marionette(MarionetteWire)
    }

    let kind: Kind
    private let wire: Wire
    /// Where screenshots of failed tests go (`SHOPKEEPER_TEST_OUTPUT`, default `.build/test-output`).
    let outputFolder: URL

    private init(kind: Kind, wire: Wire) {
        self.kind = kind
        self.wire = wire
        outputFolder = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["SHOPKEEPER_TEST_OUTPUT"]
                ?? FileManager.default.currentDirectoryPath + "/.build/test-output")
    }

    /// Starts a headless browser of `kind` in a window of `width` x `height`.
    static func start(_ kind: Kind = .chromium, width: Int = 1280, height: Int = 900) async throws -> Browser {
        switch kind {
        case .chromium: try await startChromium(width: width, height: height)
        case .firefox:
            Browser(kind: .firefox, wire: .marionette(try await MarionetteWire.start(width: width, height: height)))
        }
    }

    /// Starts `chromedriver` on a free port and a headless Chromium session in a window of `width` x `height`.
    private static func startChromium(width: Int, height: Int) async throws -> Browser {
        let environment = ProcessInfo.processInfo.environment
        let driverPath = environment["SHOPKEEPER_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        let chromium = environment["SHOPKEEPER_CHROMIUM"] ?? "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: driverPath),
            FileManager.default.isExecutableFile(atPath: chromium)
        else {
            throw Failure(
                "no \(driverPath) or \(chromium): run the tests with scripts/test, which installs Debian's chromium "
                    + "and chromium-driver")
        }
        let port = try ServiceProcess.freePort()
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: driverPath)
        driver.arguments = ["--port=\(port)", "--log-level=WARNING"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        let driverURL = "http://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let ready = try? await Self.send(.GET, driverURL + "/status", body: nil),
                (ready["value"] as? [String: Any])?["ready"] as? Bool == true
            {
                break
            }
            guard ContinuousClock.now < deadline, driver.isRunning else {
                driver.terminate()
                throw Failure("chromedriver did not start on port \(port)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": chromium,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)",
                            "--no-first-run", "--disable-extensions",
                        ],
                    ],
                ]
            ]
        ]
        let created = try await Self.send(.POST, driverURL + "/session", body: capabilities)
        guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            driver.terminate()
            throw Failure("chromedriver made no session: \(created)")
        }
        return Browser(kind: .chromium, wire: .chromeDriver(driver: driver, url: driverURL, sessionID: id))
    }

    /// Ends the session and stops the browser.
    func quit() async {
        switch wire {
        case .chromeDriver(let driver, _, _):
            _ = try? await command(.DELETE, "")
            driver.terminate()
            // Polled: `waitUntilExit()` needs a run loop that a test's task does not run.
            let deadline = ContinuousClock.now + .seconds(10)
            while driver.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        case .marionette(let marionette):
            await marionette.close()
        }
    }

    /// Runs `body` with a new browser of `kind`; on failure a screenshot and the page's text are written to the
    /// output folder as `<name>.png` and `<name>.txt` (`<name>-firefox...` for Firefox), then the error is thrown on.
    static func with(_ name: String, in kind: Kind = .chromium, _ body: (Browser) async throws -> Void) async throws {
        let name = kind == .chromium ? name : "\(name)-\(kind.rawValue)"
        let browser = try await start(kind)
        do {
            try await body(browser)
        } catch {
            await browser.saveEvidence(name)
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Writes a screenshot and the page's URL and text to the output folder.
    func saveEvidence(_ name: String) async {
        try? FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true)
        if let png = try? await screenshot() {
            try? png.write(to: outputFolder.appendingPathComponent("\(name).png"))
        }
        let url = (try? await currentURL()) ?? "?"
        let text = (try? await execute("return document.body ? document.body.innerText : ''") as? String) ?? ""
        try? Data("\(url)\n\n\(text)".utf8).write(to: outputFolder.appendingPathComponent("\(name).txt"))
    }

    // MARK: Navigation and the page

    func open(_ url: String) async throws {
        _ = try await command(.POST, "/url", ["url": url])
    }

    func currentURL() async throws -> String {
        try await command(.GET, "/url") as? String ?? ""
    }

    /// Runs `script` (a function body; `arguments[i]` are `args`) in the page and returns its result.
    @discardableResult
    func execute(_ script: String, _ args: [Any] = []) async throws -> Any? {
        try await command(.POST, "/execute/sync", ["script": script, "args": args])
    }

    /// Runs an async script: it gets a callback as its last argument and must call it with the result.
    @discardableResult
    func executeAsync(_ script: String, _ args: [Any] = []) async throws -> Any? {
        try await command(.POST, "/execute/async", ["script": script, "args": args])
    }

    func screenshot() async throws -> Data {
        guard let base64 = try await command(.GET, "/screenshot") as? String, let png = Data(base64Encoded: base64)
        else { throw Failure("no screenshot") }
        return png
    }

    /// The browser's cookies for the current page: name to the whole cookie object.
    func cookies() async throws -> [String: [String: Any]] {
        let list = try await command(.GET, "/cookie") as? [[String: Any]] ?? []
        return Dictionary(list.compactMap { cookie in (cookie["name"] as? String).map { ($0, cookie) } }) { a, _ in a }
    }

    func deleteCookies() async throws {
        _ = try await command(.DELETE, "/cookie")
    }

    func addCookie(_ cookie: [String: Any]) async throws {
        _ = try await command(.POST, "/cookie", ["cookie": cookie])
    }

    // MARK: Elements

    /// An element of the page.
    struct Element: Sendable {
        let id: String
        let browser: Browser

        func click() async throws {
            try await whenInteractable { try await browser.command(.POST, "/element/\(id)/click", [:]) }
        }
        func clear() async throws {
            try await whenInteractable { try await browser.command(.POST, "/element/\(id)/clear", [:]) }
        }
        /// Types `text` into the element (after a click that focuses it).
        func type(_ text: String) async throws {
            try await whenInteractable { try await browser.command(.POST, "/element/\(id)/value", ["text": text]) }
        }

        /// Runs `action` once the element can take it, as a person waits for a field the page is still showing (a
        /// page's script may show it a moment after it exists; Firefox refuses to type into it until then).
        private func whenInteractable(_ action: () async throws -> Any?) async throws {
            try await browser.waitFor("element \(id) to take input") { () async throws -> Bool? in
                do {
                    _ = try await action()
                    return true
                } catch let failure as Failure where failure.description.contains("not interactable") {
                    return nil
                }
            }
        }
        var text: String {
            get async throws { try await browser.command(.GET, "/element/\(id)/text") as? String ?? "" }
        }
        func attribute(_ name: String) async throws -> String? {
            try await browser.command(.GET, "/element/\(id)/attribute/\(name)") as? String
        }
        func property(_ name: String) async throws -> Any? {
            try await browser.command(.GET, "/element/\(id)/property/\(name)")
        }
        var isDisplayed: Bool {
            get async throws { try await browser.command(.GET, "/element/\(id)/displayed") as? Bool ?? false }
        }
    }

    /// The elements matching a CSS selector now.
    func elements(_ selector: String) async throws -> [Element] {
        let found = try await command(.POST, "/elements", ["using": "css selector", "value": selector])
        return (found as? [[String: Any]] ?? []).compactMap { ($0[Self.elementKey] as? String) }
            .map { Element(id: $0, browser: self) }
    }

    /// The first element matching `selector`, waiting for it to appear (and, with `text`, to contain that text).
    func element(_ selector: String, containing text: String? = nil, timeout: Duration = .seconds(20))
        async throws -> Element
    {
        var last = ""
        let found = try await waitFor("\(selector)\(text.map { " containing '\($0)'" } ?? "")", timeout: timeout) {
            () async throws -> Element? in
            try await Self.unlessStale {
                for element in try await self.elements(selector) {
                    guard let text else { return element }
                    last = try await element.text
                    if last.contains(text) { return element }
                }
                return nil
            }
        }
        _ = last
        return found
    }

    /// The text of the first element matching `selector` once it satisfies `condition`.
    func text(of selector: String, timeout: Duration = .seconds(20), until condition: @escaping (String) -> Bool)
        async throws -> String
    {
        try await waitFor("text of \(selector)", timeout: timeout) { () async throws -> String? in
            try await Self.unlessStale {
                guard let element = try await self.elements(selector).first else { return nil }
                let text = try await element.text
                return condition(text) ? text : nil
            }
        }
    }

    /// `probe`'s answer, or `nil` when an element it read was replaced meanwhile (the page re-rendered it): a poll
    /// then looks again.
    static func unlessStale<T>(_ probe: () async throws -> T?) async throws -> T? {
        do {
            return try await probe()
        } catch let failure as Failure where failure.description.contains("stale element") {
            return nil
        }
    }

    /// Polls `probe` until it returns a value; the failure says what was waited for.
    @discardableResult
    func waitFor<T>(_ what: String, timeout: Duration = .seconds(20), _ probe: () async throws -> T?) async throws -> T
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try await probe() { return value }
            guard ContinuousClock.now < deadline else { throw Failure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Presses keys (`Keys`) on whatever has focus, as a keyboard user would.
    func press(_ keys: String...) async throws {
        var actions: [[String: Any]] = []
        for key in keys {
            actions.append(["type": "keyDown", "value": key])
            actions.append(["type": "keyUp", "value": key])
        }
        _ = try await command(.POST, "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Presses `key` while holding `modifier` (Shift+Tab), on whatever has focus.
    func press(_ key: String, holding modifier: String) async throws {
        let actions: [[String: Any]] = [
            ["type": "keyDown", "value": modifier], ["type": "keyDown", "value": key],
            ["type": "keyUp", "value": key], ["type": "keyUp", "value": modifier],
        ]
        _ = try await command(.POST, "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Types `text` on whatever has focus, one key press per character, as a keyboard user would.
    func typeKeys(_ text: String) async throws {
        var actions: [[String: Any]] = []
        for character in text {
            actions.append(["type": "keyDown", "value": String(character)])
            actions.append(["type": "keyUp", "value": String(character)])
        }
        _ = try await command(.POST, "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    /// Resizes the window (a phone's width, for one).
    func setWindowSize(width: Int, height: Int) async throws {
        _ = try await command(.POST, "/window/rect", ["width": width, "height": height])
    }

    /// WebDriver's codes of special keys.
    enum Keys {
        static let tab = "\u{E004}"
        static let shift = "\u{E008}"
        static let enter = "\u{E007}"
        static let escape = "\u{E00C}"
        static let space = "\u{E00D}"
    }

    // MARK: Wire

    fileprivate func command(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        guard case .chromeDriver(_, let driverURL, let sessionID) = wire else {
            guard case .marionette(let marionette) = wire else { return nil }
            return try await marionette.command(method, path, body)
        }
        let answer = try await Self.send(method, driverURL + "/session/\(sessionID)" + path, body: body)
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure("WebDriver \(method) \(path): \(error): \(value["message"] as? String ?? "")")
        }
        let value = answer["value"]
        return value is NSNull ? nil : value
    }

    private static func send(_ method: HTTPMethod, _ url: String, body: [String: Any]?) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
    }
}
