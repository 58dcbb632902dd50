import Foundation
import HTTPTypes
import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The console's static files: the right types and headers, `304` for what the browser holds, and nothing outside
/// the folder, however the path is spelled.
@Suite struct ConsoleFileTests {
    /// A console folder beside a file that must never be served.
    static func folder() throws -> (console: String, secret: String) {
        let root = NSTemporaryDirectory() + "console-test-" + RandomToken.base62(length: 8)
        let console = root + "/console"
        try FileManager.default.createDirectory(atPath: console + "/js", withIntermediateDirectories: true)
        let files = [
            "index.html": "<!doctype html><title>t</title><script type=module src=/console/js/app.js></script>",
            "js/app.js": "export const ok = true;",
            "style.css": "body{}", "logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
            ".env": "SECRET=1", "notes.md": "not served", "../secret.txt": "TOP SECRET",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: console + "/" + name)) }
        return (console, root + "/secret.txt")
    }

    @Test func filesAreServedWithTheirTypesStrictHeadersAndValidators() async throws {
        let (console, _) = try Self.folder()
        try await GatewayHarness.run(environment: ["SHOPKEEPER_CONSOLE_DIR": console]) { gateway in
            let page = try await gateway.send(.get, "/console", bearer: nil)
            #expect(page.status == .ok)
            #expect(try page.violations(.get, "/console") == [])
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-cache")
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'; script-src 'self';") == true)
            #expect(page.headers[.contentSecurityPolicy]?.contains("unsafe-inline") == false)
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[.xFrameOptions] == "DENY")
            #expect(page.headers[.referrerPolicy] == "no-referrer")
            #expect(String(buffer: page.body).hasPrefix("<!doctype html>"))
            let slash = try await gateway.send(.get, "/console/", bearer: nil)
            #expect(String(buffer: slash.body) == String(buffer: page.body))

            let etag = try #require(page.headers[.eTag])
            let again = try await gateway.send(.get, "/console", bearer: nil, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            for (path, type) in [
                ("/console/js/app.js", "text/javascript; charset=utf-8"),
                ("/console/style.css", "text/css; charset=utf-8"),
                ("/console/logo.svg", "image/svg+xml"),
            ] {
                let file = try await gateway.send(.get, path, bearer: nil)
                #expect(file.status == .ok, "\(path)")
                #expect(file.headers[.contentType] == type, "\(path)")
                #expect(file.headers[.xContentTypeOptions] == "nosniff", "\(path)")
            }
            // The session API carries the same protections, refusals included.
            let refused = try await gateway.send(.get, "/console/api/session", bearer: nil)
            #expect(refused.headers[.xFrameOptions] == "DENY")
            #expect(refused.headers[.contentSecurityPolicy] != nil)
            #expect(try await gateway.send(.post, "/console", bearer: nil).status == .methodNotAllowed)
        }
    }

    @Test func nothingOutsideTheFolderOrHiddenInItIsServed() async throws {
        let (console, secret) = try Self.folder()
        #expect(FileManager.default.fileExists(atPath: secret))
        try await GatewayHarness.run(environment: ["SHOPKEEPER_CONSOLE_DIR": console]) { gateway in
            let port = try #require(gateway.client.port)
            let client = LoopbackClient(address: "127.0.0.1")
            let absolute = secret.split(separator: "/").joined(separator: "/")
            for path in [
                "/console/../secret.txt", "/console/%2e%2e/secret.txt", "/console/%2E%2E%2Fsecret.txt",
                "/console/..%2fsecret.txt", "/console/js/../../secret.txt", "/console/%2e%2e%5csecret.txt",
                "/console//\(absolute)", "/console/\(absolute)", "/console/%2F\(absolute)", "/console/.env",
                "/console/notes.md", "/console/js", "/console/js/", "/console/nothing.js", "/console/index.html%00.js",
                "/console/./index.html",
            ] {
                let answer = try await client.get(port: port, path)
                #expect(answer.status == 404 || answer.status == 400, "\(path): \(answer.status)")
                #expect(!answer.body.contains("TOP SECRET") && !answer.body.contains("SECRET=1"), "\(path)")
            }
            #expect(try await client.get(port: port, "/console/js/app.js").status == 200)
        }
    }

    @Test func pathsMapToTheTableOnly() {
        let cases: [(String, String?)] = [
            ("/console", "index.html"), ("/console/", "index.html"), ("/console/js/app.js", "js/app.js"),
            ("/console/a%20b.css", "a b.css"), ("/console/../x", nil), ("/console/%2e%2e/x", nil),
            ("/console/.git/x", nil),
            ("/console/a/./b", nil), ("/console/a//b", nil), ("/console/a\\b", nil), ("/consolex", nil), ("/x", nil),
            ("/console/%zz", nil),
        ]
        for (path, expected) in cases {
            #expect(ConsoleFiles.relativePath(path) == expected, "\(path)")
        }
    }

    @Test func theFolderIsCheckedAtStart() throws {
        let (console, _) = try Self.folder()
        let configured = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_CONSOLE_DIR": console]))
        #expect(configured.console.directory == console)
        for bad in [console + "/nothing-here", console + "/js"] {
            #expect(throws: ConfigurationError.self) {
                _ = try GatewaySettings.read(from: EnvironmentReader(["SHOPKEEPER_CONSOLE_DIR": bad]))
            }
        }
        #expect(throws: ConfigurationError.self) {
            _ = try GatewaySettings.read(
                from: EnvironmentReader([
                    "SHOPKEEPER_CONSOLE_SESSION_SECONDS": "60", "SHOPKEEPER_CONSOLE_IDLE_SECONDS": "61",
                ]))
        }
        // Unset, the repository's own Console folder (the working directory's) is served when there is one.
        let defaults = try ConsoleSettings.read(EnvironmentReader([:]), currentDirectory: console + "/..")
        #expect(defaults.directory == nil)
        let files = try ConsoleFiles.load(from: console)
        #expect(Set(files.files.keys) == ["index.html", "js/app.js", "style.css", "logo.svg"])
    }
}
