import Foundation
import HTTPTypes
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The role table as `docs/architecture.md` ("Roles") states it, held against a live gateway: every operation of
/// the public API's route table (`PublicRoutes`, itself held to `docs/openapi.yaml`) under `/v1` that takes a key,
/// called through a console session of each role, is refused with `403 role_insufficient` exactly when the documented
/// table asks for more; a viewer changes nothing.
@Suite struct ConsoleRoleMatrixTests {
    /// One line of the documented table.
    struct DocumentedRule {
        var methods: String
        var segments: [Substring]?
        var minimum: ConsoleRole

        func matches(_ method: HTTPRequest.Method, _ path: [Substring]) -> Bool {
            let read = method == .get || method == .head
            guard methods == "any" || (methods == "read") == read else { return false }
            guard let segments else { return true }
            return path.count >= segments.count && zip(segments, path).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    /// The table under "| methods | path prefix | least role |" in `docs/architecture.md`.
    static func documentedRules(file: String = #filePath) throws -> [DocumentedRule] {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        var text: String?
        while directory.path != "/" {
            if let found = try? String(
                contentsOf: directory.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
            {
                text = found
                break
            }
            directory.deleteLastPathComponent()
        }
        let lines = try #require(text).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(lines.firstIndex(of: "| methods | path prefix | least role |"))
        var rules: [DocumentedRule] = []
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let role = try #require(ConsoleRole(rawValue: cells[2]), "\(line)")
            let prefix =
                cells[1].hasPrefix("`") ? cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")) : nil
            rules.append(
                DocumentedRule(methods: cells[0], segments: prefix.map { $0.split(separator: "/") }, minimum: role))
        }
        return rules
    }

    /// The operations: every documented `/v1` path and method that takes a key (keyless ones carry their own proof),
    /// but the content service's (``GatewayHarness`` runs no content service, so the gateway has no route there:
    /// `404` before any authentication; `ContentTests` hold those routes).
    static var operations: [(HTTPRequest.Method, String)] {
        PublicRoutes.shopkeeper.templates.filter {
            $0.path.hasPrefix("/v1/") && !$0.path.hasPrefix("/v1/notifications/")
                && !$0.path.hasPrefix("/v1/downloads/") && !$0.path.hasPrefix("/v1/content/")
                && !$0.path.hasPrefix("/v1/admin/content/")
        }.flatMap { template in
            template.methods.filter { $0 != .head }.map { ($0, template.path) }
        }
    }

    /// `template` with each `{parameter}` filled in.
    static func concrete(_ template: String) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            switch segment {
            case "{store}": "apple"
            case "{app_user_id}": "matrix-customer"
            default: segment.hasPrefix("{") ? "x1" : String(segment)
            }
        }.joined(separator: "/")
    }

    @Test func everyOperationIsAllowedOrRefusedForEachRoleExactlyAsTheDocumentedTableSays() async throws {
        let rules = try Self.documentedRules()
        #expect(rules.count > 20)
        #expect(rules.last?.segments == nil && rules.last?.minimum == .admin)
        let operations = Self.operations
        #expect(operations.count > 60)
        // The table in the docs and the one in the code agree line for line.
        #expect(
            rules.dropLast().map { "\($0.methods) /\($0.segments?.joined(separator: "/") ?? "") \($0.minimum)" }
                == ConsoleRoles.rules.map { "\($0.methods.rawValue) \($0.prefix) \($0.minimum)" })
        try await GatewayHarness.run(environment: GatewayHarness.teamEnvironment) { gateway in
            let app = try await gateway.createApp("Matrix")
            var refusedWrites: [ConsoleRole: Int] = [:]
            var checked = 0
            for role in ConsoleRole.allCases {
                let (login, _) = try await gateway.teamLogin("\(role.rawValue)@example.com", as: role, app: app)
                for (method, template) in operations {
                    let path = Self.concrete(template)
                    let minimum = rules.first { $0.matches(method, path.split(separator: "/")) }?.minimum ?? .admin
                    let write = method != .get
                    let answer = try await gateway.send(
                        method, path, bearer: nil, json: write ? Data("{}".utf8) : nil,
                        headers: write ? login.change : login.cookie)
                    let refused = answer.status == .forbidden && answer.problemCode == "role_insufficient"
                    #expect(refused == (role < minimum), "\(role) \(method) \(path): \(answer.status)")
                    #expect(answer.status != .unauthorized, "\(role) \(method) \(path): the session ended")
                    if refused {
                        #expect(try answer.violations(method, template) == [], "\(method) \(template)")
                        if write { refusedWrites[role, default: 0] += 1 }
                    }
                    checked += 1
                }
            }
            // A viewer changes nothing: every write refused.
            #expect(refusedWrites[.viewer] == operations.filter { $0.0 != .get }.count)
            #expect(refusedWrites[.admin] == nil)
            #expect(checked == operations.count * ConsoleRole.allCases.count)
        }
    }
}
