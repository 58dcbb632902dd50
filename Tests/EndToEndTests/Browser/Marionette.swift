import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A headless Firefox (Debian's `firefox-esr`) driven over Marionette, Firefox's own remote protocol, which speaks the
/// WebDriver commands under their W3C names (Debian ships no `geckodriver`). ``Browser`` sends its WebDriver requests
/// here as it would to `chromedriver`; ``command(_:_:_:)`` maps each to its Marionette command.
///
/// The wire: one TCP connection; every message is `<length>:<JSON>`; a command is `[0, id, name, parameters]` and its
/// answer `[1, id, error, result]`, where most results are `{"value": ...}` as in WebDriver.
final class MarionetteWire: @unchecked Sendable {
    private let firefox: Process
    private let profile: URL
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private var buffer = ByteBuffer()
    private var nextID = 0
    private let lock = NSLock()

    private init(
        firefox: Process, profile: URL, channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>,
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    ) {
        self.firefox = firefox
        self.profile = profile
        self.channel = channel
        self.inbound = inbound
    }

    /// Starts a headless Firefox listening for Marionette on a free port, in a throwaway profile, and opens a session.
    static func start(width: Int, height: Int) async throws -> MarionetteWire {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["SHOPKEEPER_FIREFOX"] ?? "/usr/bin/firefox-esr"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Browser.Failure("no \(path): run the tests with scripts/test, which installs Debian's firefox-esr")
        }
        let port = try ServiceProcess.freePort()
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("firefox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let preferences = [
            "marionette.port": "\(port)",
            // Nothing fetched from outside: no updates, no telemetry, no first-run pages.
            "app.update.enabled": "false", "browser.shell.checkDefaultBrowser": "false",
            "datareporting.policy.dataSubmissionEnabled": "false", "toolkit.telemetry.enabled": "false",
            "browser.startup.homepage_override.mstone": "\"ignore\"", "browser.aboutwelcome.enabled": "false",
        ]
        let userJS = preferences.map { "user_pref(\"\($0.key)\", \($0.value));" }.joined(separator: "\n")
        try Data(userJS.utf8).write(to: profile.appendingPathComponent("user.js"))
        let firefox = Process()
        firefox.executableURL = URL(fileURLWithPath: path)
        firefox.arguments = [
            "--headless", "--marionette", "--no-remote", "--profile", profile.path, "--width", "\(width)",
            "--height", "\(height)",
        ]
        var processEnvironment = environment
        processEnvironment["MOZ_HEADLESS"] = "1"
        firefox.environment = processEnvironment
        firefox.standardOutput = FileHandle.nullDevice
        firefox.standardError = FileHandle.nullDevice
        try firefox.run()
        // Marionette listens once Firefox has started: connect until it answers.
        let deadline = ContinuousClock.now + .seconds(60)
        var connected: NIOAsyncChannel<ByteBuffer, ByteBuffer>?
        while connected == nil {
            connected = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            if connected == nil {
                guard ContinuousClock.now < deadline, firefox.isRunning else {
                    firefox.terminate()
                    throw Browser.Failure("Firefox did not open Marionette on port \(port)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        guard let channel = connected else { throw Browser.Failure("no Marionette connection") }
        let wire = MarionetteWire(
            firefox: firefox, profile: profile, channel: channel, inbound: channel.inbound.makeAsyncIterator())
        _ = try await wire.receive()  // {"applicationType": "gecko", "marionetteProtocol": 3}
        _ = try await wire.call(
            "WebDriver:NewSession", ["capabilities": ["alwaysMatch": ["pageLoadStrategy": "normal"]]])
        _ = try await wire.call("WebDriver:SetWindowRect", ["width": width, "height": height])
        return wire
    }

    /// Sends the WebDriver request `method path` (the part after `/session/{id}`) as its Marionette command.
    func command(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        let parts = path.split(separator: "/").map(String.init)
        var parameters = body ?? [:]
        let name: String
        switch (method, parts.first ?? "", parts.count) {
        case (.DELETE, "", 0): name = "WebDriver:DeleteSession"
        case (.POST, "url", 1): name = "WebDriver:Navigate"
        case (.GET, "url", 1): name = "WebDriver:GetCurrentURL"
        case (.POST, "execute", 2):
            name = parts[1] == "async" ? "WebDriver:ExecuteAsyncScript" : "WebDriver:ExecuteScript"
        case (.GET, "screenshot", 1):
            name = "WebDriver:TakeScreenshot"
            parameters = ["full": false, "hash": false]
        case (.GET, "cookie", 1): name = "WebDriver:GetCookies"
        case (.DELETE, "cookie", 1): name = "WebDriver:DeleteAllCookies"
        case (.POST, "cookie", 1): name = "WebDriver:AddCookie"
        case (.POST, "elements", 1): name = "WebDriver:FindElements"
        case (.POST, "actions", 1): name = "WebDriver:PerformActions"
        case (.POST, "window", 2): name = "WebDriver:SetWindowRect"
        case (_, "element", 3...):
            parameters["id"] = parts[1]
            switch (method, parts[2]) {
            case (.POST, "click"): name = "WebDriver:ElementClick"
            case (.POST, "clear"): name = "WebDriver:ElementClear"
            case (.POST, "value"): name = "WebDriver:ElementSendKeys"
            case (.GET, "text"): name = "WebDriver:GetElementText"
            case (.GET, "displayed"): name = "WebDriver:IsElementDisplayed"
            case (.GET, "attribute") where parts.count == 4:
                name = "WebDriver:GetElementAttribute"
                parameters["name"] = parts[3]
            case (.GET, "property") where parts.count == 4:
                name = "WebDriver:GetElementProperty"
                parameters["name"] = parts[3]
            default: throw Browser.Failure("no Marionette command for \(method) \(path)")
            }
        default: throw Browser.Failure("no Marionette command for \(method) \(path)")
        }
        let result = try await call(name, parameters)
        // Most results are `{"value": ...}`; a few (find elements) are the value itself.
        let value = (result as? [String: Any]).flatMap { $0.keys.count == 1 ? $0["value"] : nil } ?? result
        return value is NSNull ? nil : value
    }

    /// Ends the session, quits Firefox and removes its profile.
    func close() async {
        _ = try? await call("Marionette:Quit", [:])
        try? await channel.channel.close()
        let deadline = ContinuousClock.now + .seconds(10)
        while firefox.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if firefox.isRunning { firefox.terminate() }
        try? FileManager.default.removeItem(at: profile)
    }

    // MARK: Wire

    private func call(_ name: String, _ parameters: [String: Any]) async throws -> Any? {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        let json = try JSONSerialization.data(withJSONObject: [0, id, name, parameters] as [Any])
        var message = ByteBuffer(string: "\(json.count):")
        message.writeBytes(json)
        try await channel.outbound.write(message)
        while true {
            guard let answer = try await receive() as? [Any], answer.count == 4, answer[0] as? Int == 1 else {
                throw Browser.Failure("Marionette \(name): an answer that is not one")
            }
            guard answer[1] as? Int == id else { continue }
            if let error = answer[2] as? [String: Any] {
                throw Browser.Failure(
                    "Marionette \(name): \(error["error"] as? String ?? "error"): \(error["message"] as? String ?? "")")
            }
            return answer[3]
        }
    }

    /// The next message: `<length>:<JSON>`.
    private func receive() async throws -> Any {
        while true {
            let view = buffer.readableBytesView
            if let colon = view.firstIndex(of: UInt8(ascii: ":")),
                let length = Int(String(decoding: view[view.startIndex..<colon], as: UTF8.self))
            {
                let start = colon + 1
                if view.endIndex - start >= length {
                    let json = Data(view[start..<(start + length)])
                    buffer.moveReaderIndex(forwardBy: start - view.startIndex + length)
                    return try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
                }
            }
            guard var more = try await inbound.next() else {
                throw Browser.Failure("Marionette closed the connection")
            }
            buffer.writeBuffer(&more)
        }
    }
}
