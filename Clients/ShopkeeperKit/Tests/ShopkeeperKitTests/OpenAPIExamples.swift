import Foundation
import Testing

@testable import ShopkeeperKit

/// `docs/openapi.yaml` as JSON. The package depends on nothing, so the test converts the YAML with Python 3 and
/// PyYAML (`python3-yaml`; `scripts/test` installs it when missing), the way the contract check reads it.
enum OpenAPIDocument {
    static var yamlPath: String {
        if let path = ProcessInfo.processInfo.environment["SHOPKEEPER_OPENAPI"] { return path }
        // Clients/ShopkeeperKit/Tests/ShopkeeperKitTests/<this file> -> the repository's docs/openapi.yaml
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("docs/openapi.yaml").path
    }

    static func load() throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", yamlPath,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("python3 with PyYAML could not read \(yamlPath) (apt-get install python3-yaml)")
        }
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure("\(yamlPath) is not an object")
        }
        return document
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// One example of the document and the schema it illustrates.
struct DocumentExample {
    var location: String
    var schema: String
    var value: Any
}

extension OpenAPIDocument {
    /// Every example of a response or a component schema, with the schema it belongs to.
    static func examples(in document: [String: Any]) -> [DocumentExample] {
        let components = document["components"] as? [String: Any] ?? [:]
        let namedExamples = components["examples"] as? [String: Any] ?? [:]
        let namedResponses = components["responses"] as? [String: Any] ?? [:]
        var found: [DocumentExample] = []

        func resolve(_ object: Any?, in table: [String: Any]) -> [String: Any]? {
            guard let object = object as? [String: Any] else { return nil }
            if let ref = object["$ref"] as? String, let name = ref.split(separator: "/").last {
                return table[String(name)] as? [String: Any]
            }
            return object
        }
        func schemaName(_ schema: Any?) -> String? {
            guard let ref = (schema as? [String: Any])?["$ref"] as? String else { return nil }
            return ref.split(separator: "/").last.map(String.init)
        }
        func collect(content: Any?, at location: String) {
            for (mediaType, media) in content as? [String: Any] ?? [:] {
                guard let media = media as? [String: Any], let schema = schemaName(media["schema"]) else { continue }
                if let example = media["example"] {
                    found.append(DocumentExample(location: "\(location) \(mediaType)", schema: schema, value: example))
                }
                for (name, example) in media["examples"] as? [String: Any] ?? [:] {
                    if let value = resolve(example, in: namedExamples)?["value"] {
                        found.append(
                            DocumentExample(location: "\(location) \(mediaType) \(name)", schema: schema, value: value))
                    }
                }
            }
        }
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                for (status, response) in responses {
                    collect(
                        content: resolve(response, in: namedResponses)?["content"],
                        at: "\(method.uppercased()) \(path) \(status)")
                }
            }
        }
        for (name, schema) in components["schemas"] as? [String: Any] ?? [:] {
            guard let schema = schema as? [String: Any] else { continue }
            if let example = schema["example"] {
                found.append(DocumentExample(location: "schema \(name)", schema: name, value: example))
            }
            if schema["type"] as? String == "object" || schema["properties"] != nil {
                for example in schema["examples"] as? [Any] ?? [] {
                    found.append(DocumentExample(location: "schema \(name)", schema: name, value: example))
                }
            }
        }
        return found
    }

    /// The `$ref` schema names of the 2xx JSON answers of these operations.
    static func successSchemas(of operationIDs: Set<String>, in document: [String: Any]) -> [String: [String]] {
        let components = document["components"] as? [String: Any] ?? [:]
        let namedResponses = components["responses"] as? [String: Any] ?? [:]
        var schemas: [String: [String]] = [:]
        for (_, item) in document["paths"] as? [String: Any] ?? [:] {
            for (_, operation) in item as? [String: Any] ?? [:] {
                guard let operation = operation as? [String: Any], let id = operation["operationId"] as? String,
                    operationIDs.contains(id)
                else { continue }
                for (status, response) in operation["responses"] as? [String: Any] ?? [:] where status.hasPrefix("2") {
                    var response = response as? [String: Any]
                    if let ref = response?["$ref"] as? String, let name = ref.split(separator: "/").last {
                        response = namedResponses[String(name)] as? [String: Any]
                    }
                    let content = response?["content"] as? [String: Any]
                    let schema = (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
                    if let ref = schema?["$ref"] as? String, let name = ref.split(separator: "/").last {
                        schemas[id, default: []].append(String(name))
                    }
                }
            }
        }
        return schemas
    }
}
