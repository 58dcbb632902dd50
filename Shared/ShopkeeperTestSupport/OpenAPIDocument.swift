import Foundation
import Yams

/// The project's OpenAPI document (`docs/openapi.yaml`), loaded for tests that hold the server to it.
package struct OpenAPIDocument: @unchecked Sendable {
    /// The parsed YAML: dictionaries, arrays, strings, numbers, booleans.
    package let root: [String: Any]

    /// Loads `docs/openapi.yaml` from the repository this file belongs to.
    package static func load(file: String = #filePath) throws -> OpenAPIDocument {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("docs/openapi.yaml")
            if FileManager.default.fileExists(atPath: candidate.path) {
                let text = try String(contentsOf: candidate, encoding: .utf8)
                guard let root = try Yams.load(yaml: text) as? [String: Any] else {
                    throw Problem("not a YAML mapping")
                }
                return OpenAPIDocument(root: root)
            }
            directory = directory.deletingLastPathComponent()
        }
        throw Problem("docs/openapi.yaml not found above \(file)")
    }

    /// Every documented `METHOD /path` (methods uppercased, paths with `{param}`).
    package var operations: Set<String> {
        var result: Set<String> = []
        let paths = root["paths"] as? [String: Any] ?? [:]
        for (path, item) in paths {
            for key in (item as? [String: Any] ?? [:]).keys
            where ["get", "put", "post", "delete", "patch", "head", "options"].contains(key) {
                result.insert("\(key.uppercased()) \(path)")
            }
        }
        return result
    }

    /// Problems of a response against the document: undocumented status, media type, or a body off its schema.
    package func violations(
        method: String,
        path: String,
        status: Int,
        contentType: String?,
        body: Data
    ) -> [String] {
        let where_ = "\(method.uppercased()) \(path) -> \(status)"
        guard
            let operation = (root["paths"] as? [String: Any])?[path].flatMap({ $0 as? [String: Any] })?[
                method.lowercased()]
                as? [String: Any]
        else { return ["\(where_): operation not documented"] }
        let responses = operation["responses"] as? [String: Any] ?? [:]
        guard var response = (responses[String(status)] ?? responses["default"]) as? [String: Any] else {
            return ["\(where_): status not documented"]
        }
        response = resolve(response)
        let content = response["content"] as? [String: Any] ?? [:]
        if content.isEmpty {
            return body.isEmpty ? [] : ["\(where_): documented without a body, got \(body.count) bytes"]
        }
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let media = content[mediaType] as? [String: Any] else {
            return ["\(where_): media type '\(mediaType)' not documented (\(content.keys.sorted()))"]
        }
        guard let schema = media["schema"] as? [String: Any] else { return [] }
        guard mediaType.hasSuffix("json") else { return [] }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            return ["\(where_): body is not JSON"]
        }
        return validate(value, against: schema, at: "", closed: true).map { "\(where_): \($0)" }
    }

    /// Follows `$ref` within the document.
    package func resolve(_ object: [String: Any]) -> [String: Any] {
        var current = object
        var hops = 0
        while let reference = current["$ref"] as? String, reference.hasPrefix("#/"), hops < 20 {
            var node: Any = root
            for part in reference.dropFirst(2).split(separator: "/") {
                node = (node as? [String: Any])?[String(part)] ?? [:]
            }
            current = node as? [String: Any] ?? [:]
            hops += 1
        }
        return current
    }

    /// Checks `value` against the JSON Schema subset the document uses.
    ///
    /// With `closed`, an object field that no `properties` (of the schema or its `allOf` parts) names is a problem
    /// unless `additionalProperties` allows it: a response must not carry undocumented fields.
    package func validate(
        _ value: JSONValue,
        against schemaObject: [String: Any],
        at pointer: String,
        closed: Bool = false
    ) -> [String] {
        let schema = resolve(schemaObject)
        var problems: [String] = []
        let location = pointer.isEmpty ? "/" : pointer
        if let all = schema["allOf"] as? [[String: Any]] {
            for part in all { problems += validate(value, against: part, at: pointer, closed: false) }
        }
        if let any = schema["anyOf"] as? [[String: Any]] ?? schema["oneOf"] as? [[String: Any]],
            !any.contains(where: { validate(value, against: $0, at: pointer, closed: closed).isEmpty })
        {
            problems.append("\(location): matches none of the alternatives")
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { value.equals(yaml: $0) }) {
            problems.append("\(location): \(value) is not one of \(allowed)")
        }
        if let constant = schema["const"], !value.equals(yaml: constant) {
            problems.append("\(location): \(value) is not \(constant)")
        }
        let types: [String] = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if !types.isEmpty, !types.contains(where: { value.has(type: $0) }) {
            problems.append("\(location): \(value) is not \(types)")
            return problems
        }
        if case .string(let string) = value {
            if let pattern = schema["pattern"] as? String, string.range(of: pattern, options: .regularExpression) == nil
            {
                problems.append("\(location): '\(string)' does not match \(pattern)")
            }
            if let minimum = schema["minLength"] as? Int, string.count < minimum {
                problems.append("\(location): shorter than \(minimum)")
            }
        }
        if case .object(let object) = value {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(location): required field '\(name)' is missing")
            }
            let known = knownProperties(schema)
            for (name, child) in object {
                if let propertySchema = properties[name] as? [String: Any] {
                    problems += validate(child, against: propertySchema, at: "\(pointer)/\(name)", closed: closed)
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(child, against: additional, at: "\(pointer)/\(name)", closed: closed)
                } else if (schema["additionalProperties"] as? Bool) == false
                    || (closed && schema["additionalProperties"] == nil && !known.contains(name)
                        && !known.contains("*"))
                {
                    problems.append("\(location): field '\(name)' is not documented")
                }
            }
        }
        if case .array(let array) = value, let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                problems += validate(element, against: items, at: "\(pointer)/\(index)", closed: closed)
            }
        }
        return problems
    }

    /// Property names of a schema and of its `allOf` parts.
    private func knownProperties(_ schemaObject: [String: Any]) -> Set<String> {
        let schema = resolve(schemaObject)
        var names = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
        for part in schema["allOf"] as? [[String: Any]] ?? [] { names.formUnion(knownProperties(part)) }
        if schema["properties"] == nil && schema["allOf"] == nil { names.insert("*") }
        return names
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// A JSON value that keeps booleans and numbers apart (unlike `JSONSerialization` on Linux).
package enum JSONValue: Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func has(type: String) -> Bool {
        switch (type, self) {
        case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number),
            ("string", .string), ("array", .array), ("object", .object):
            true
        default: false
        }
    }

    /// Compares with a scalar parsed from YAML.
    func equals(yaml: Any) -> Bool {
        switch self {
        case .string(let value): (yaml as? String) == value
        case .integer(let value): (yaml as? Int).map { Int64($0) == value } ?? false
        case .bool(let value): (yaml as? Bool) == value
        case .number(let value): (yaml as? Double) == value
        case .null: yaml is NSNull
        default: false
        }
    }

    package var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "'\(value)'"
        case .array(let values): "array(\(values.count))"
        case .object: "object"
        }
    }
}
