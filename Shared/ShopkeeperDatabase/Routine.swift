/// A PL/pgSQL function a service installs at start (``MigrationRunner``), for a write that would otherwise take
/// several round trips: PL/pgSQL plans each of its statements once per server session, as a prepared statement is.
///
/// Its name ends in a hash of its definition, so a routine is never changed in place: a new definition is a new
/// function, installed beside the old one. Replicas of two versions running at once during a rolling deploy each call
/// their own, and what a routine runs is exactly what the code that calls it was tested with. A routine is built from
/// statements the service also runs by themselves (``init(schema:base:returns:answering:)``), so the SQL has one
/// source: the Swift text of the statement.
package struct Routine: Sendable {
    /// The function's qualified name, `schema.base_hash`: what callers write in their statements.
    package let name: String
    /// `CREATE OR REPLACE FUNCTION ...`, whole.
    package let definition: String
    /// The name without its schema: what `pg_proc` lists.
    package let unqualifiedName: String

    /// - Parameters:
    ///   - schema: the service's schema (lowercase letters and `_`).
    ///   - base: the name before the hash (lowercase letters and `_`).
    ///   - parameters: the parameter list, as SQL (`text, text, p_device text`).
    ///   - returns: what follows `RETURNS` (`TABLE (...)`, `SETOF uuid`).
    ///   - body: the PL/pgSQL block, from its optional `DECLARE` to its `END`.
    package init(schema: String, base: String, parameters: String, returns: String, body: String) {
        precondition(
            [schema, base].allSatisfy { name in !name.isEmpty && name.allSatisfy { $0.isLowercase || $0 == "_" } },
            "routine and schema names are constants of lowercase letters")
        let signature = "(\(parameters)) RETURNS \(returns) LANGUAGE plpgsql VOLATILE AS $routine$\n\(body)\n$routine$"
        unqualifiedName = "\(base)_\(String(fnv1a64(signature), radix: 16))"
        name = "\(schema).\(unqualifiedName)"
        definition = "CREATE OR REPLACE FUNCTION \(name)\(signature)"
    }

    /// A routine answering the rows of `statement`, run with the routine's arguments as its `$1`, `$2`...: the
    /// statement as a step of another routine whose own arguments are numbered differently. Each parameter's type is
    /// the one its casts give it (``PreparedSQL`` asks for a cast at every parameter); `returns` names the columns
    /// (`TABLE (...)`: give them names unlike the statement's columns).
    package init<S: PreparedSQL>(schema: String, base: String, returns: String, answering statement: S.Type) {
        let types = Self.parameterTypes(of: S.sql)
        self.init(
            schema: schema, base: base, parameters: types.joined(separator: ", "), returns: returns,
            body: "#variable_conflict use_column\nBEGIN\nRETURN QUERY\n\(S.sql);\nEND")
    }

    /// The type of each parameter `$1`, `$2`... of `sql`, from its first cast (`$3::timestamptz`). A parameter
    /// that is never cast, or a gap in the numbering, stops the process: it is a mistake in a constant.
    static func parameterTypes(of sql: String) -> [String] {
        var types: [Int: String] = [:]
        let text = Array(sql.utf8)
        var index = 0
        while index < text.count {
            guard text[index] == UInt8(ascii: "$") else {
                index += 1
                continue
            }
            var cursor = index + 1
            var number = 0
            while cursor < text.count, let digit = Self.digit(text[cursor]) {
                number = number * 10 + digit
                cursor += 1
            }
            let isCast =
                cursor + 1 < text.count && text[cursor] == UInt8(ascii: ":") && text[cursor + 1] == UInt8(ascii: ":")
            if number > 0, isCast {
                var end = cursor + 2
                while end < text.count, Self.isTypeCharacter(text[end]) { end += 1 }
                let type = String(decoding: text[(cursor + 2)..<end], as: UTF8.self)
                if types[number] == nil, !type.isEmpty { types[number] = type }
            }
            index = max(cursor, index + 1)
        }
        guard let count = types.keys.max() else { return [] }
        return (1...count).map { number in
            guard let type = types[number] else { preconditionFailure("parameter $\(number) is never cast") }
            return type
        }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func isTypeCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || digit(byte) != nil || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
    }
}
