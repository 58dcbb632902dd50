/// Splits a SQL script into statements at top-level semicolons.
///
/// PostgresNIO speaks the extended protocol, which takes one statement per message, so a migration file is sent
/// statement by statement (inside one transaction). Quotes, dollar-quoted bodies and comments are respected.
enum SQLStatementSplitter {
    static func split(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var index = script.startIndex
        var dollarTag: String?
        var inSingleQuote = false
        var inDoubleQuote = false

        func flush() {
            let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { statements.append(trimmed) }
            current = ""
        }

        while index < script.endIndex {
            let character = script[index]
            let rest = script[index...]
            if let tag = dollarTag {
                if rest.hasPrefix(tag) {
                    current += tag
                    index = script.index(index, offsetBy: tag.count)
                    dollarTag = nil
                    continue
                }
            } else if inSingleQuote {
                if character == "'" { inSingleQuote = false }
            } else if inDoubleQuote {
                if character == "\"" { inDoubleQuote = false }
            } else if rest.hasPrefix("--") {
                // A line comment: skip to the end of the line.
                let end = rest.firstIndex(of: "\n") ?? script.endIndex
                index = end
                continue
            } else if character == "'" {
                inSingleQuote = true
            } else if character == "\"" {
                inDoubleQuote = true
            } else if character == "$", let tag = Self.dollarTag(at: rest) {
                dollarTag = tag
                current += tag
                index = script.index(index, offsetBy: tag.count)
                continue
            } else if character == ";" {
                flush()
                index = script.index(after: index)
                continue
            }
            current.append(character)
            index = script.index(after: index)
        }
        flush()
        return statements
    }

    /// `$$` or `$tag$` at the start of `text`.
    private static func dollarTag(at text: Substring) -> String? {
        var tag = "$"
        for character in text.dropFirst() {
            if character == "$" { return tag + "$" }
            guard character.isLetter || character.isNumber || character == "_" else { return nil }
            tag.append(character)
        }
        return nil
    }
}
