import Foundation

/// Finds the NUL character (U+0000) in request input before it reaches PostgreSQL.
///
/// PostgreSQL's `text` holds any Unicode character but NUL (it fails with SQLSTATE 22021). A Swift `String` may hold
/// one, so a JSON body with `\u0000` or a URL with `%00` would otherwise reach a statement and fail as a server
/// error. Every service refuses such input at its edge instead: ``JSONBody`` for bodies, ``NULCharacterMiddleware``
/// for paths and queries.
package enum NULCharacter {
    /// The detail of a field problem about a NUL.
    package static let problem = "must not contain the NUL character (U+0000)"

    /// The RFC 6901 pointer of the first string (a value or a member name) in a JSON body that holds a NUL, or `nil`.
    ///
    /// Cheap for the usual body: the bytes are scanned for the escape `\u0000` first (JSON cannot carry a raw NUL),
    /// and only a body that has one is parsed again to name the field.
    package static func pointer(inJSON data: Data) -> String? {
        guard containsEscapedNUL(data) else { return nil }
        return firstPointer(inJSON: data) ?? "/"
    }

    /// Like ``pointer(inJSON:)``, but only in what `value`, decoded from `data`, kept: a NUL in a member the model
    /// ignores cannot reach the database and is no reason to refuse the request.
    package static func pointer(in value: some Decodable, decodedFrom data: Data) -> String? {
        guard containsEscapedNUL(data) else { return nil }
        if let encodable = value as? any Encodable, let kept = try? JSONBody.encode(encodable) {
            return firstPointer(inJSON: kept)
        }
        return firstPointer(inJSON: data) ?? "/"
    }

    private static func firstPointer(inJSON data: Data) -> String? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        return pointer(in: value, at: "")
    }

    /// Whether `text` holds a NUL.
    package static func isIn(_ text: Substring) -> Bool {
        text.utf8.contains(0)
    }

    /// Whether the bytes hold a JSON escape `\u0000` (a backslash that is not itself escaped, then `u0000`).
    static func containsEscapedNUL(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let pattern = Array("u0000".utf8)
            var index = 1
            while index + pattern.count <= bytes.count {
                if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern),
                    backslashes(in: bytes, before: index) % 2 == 1
                {
                    return true
                }
                index += 1
            }
            return false
        }
    }

    /// How many backslashes come right before `index`.
    private static func backslashes(in bytes: UnsafeRawBufferPointer, before index: Int) -> Int {
        var count = 0
        var position = index - 1
        while position >= 0, bytes[position] == UInt8(ascii: "\\") {
            count += 1
            position -= 1
        }
        return count
    }

    private static func pointer(in value: Any, at path: String) -> String? {
        if let text = value as? String {
            return text.unicodeScalars.contains("\u{0}") ? (path.isEmpty ? "/" : path) : nil
        }
        if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                if let found = pointer(in: element, at: path + "/\(index)") { return found }
            }
            return nil
        }
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() {
                let member = path + "/" + JSONBody.pointerToken(key)
                if key.unicodeScalars.contains("\u{0}") { return member }
                if let element = object[key], let found = pointer(in: element, at: member) { return found }
            }
        }
        return nil
    }
}
