/// Picks the localization closest to the caller's locale: exact tag, then same language, then the default.
enum LocaleMatcher {
    /// `en`, `de-AT`, `pt_BR`, `zh-Hant-TW`: a 2-3 letter language and optional 2-8 character subtags.
    static func isValidTag(_ tag: String) -> Bool {
        let parts = normalized(tag).split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// Lowercase with `-` separators, so `pt_BR` and `PT-br` compare equal.
    static func normalized(_ tag: String) -> String {
        tag.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The key of `available` to use for `requested`.
    ///
    /// Order: the exact tag; the bare language (`de` for `de-AT`); another region of the language (`de-CH`);
    /// the default locale.
    static func bestMatch(requested: String?, available: some Collection<String>, defaultLocale: String) -> String {
        guard let requested, !requested.isEmpty else { return defaultLocale }
        let wanted = normalized(requested)
        let keyed = available.map { (normalized($0), $0) }.sorted { $0.0 < $1.0 }
        if let exact = keyed.first(where: { $0.0 == wanted }) { return exact.1 }
        let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
        if let bare = keyed.first(where: { $0.0 == language }) { return bare.1 }
        if let sibling = keyed.first(where: { $0.0.hasPrefix(language + "-") }) { return sibling.1 }
        return defaultLocale
    }

    /// Whether `requested` is `tag` or lies under it (`de` covers `de`, `de-AT` and `de-CH`, not `dea`), compared as
    /// ``normalized(_:)`` spells both: how a targeting rule's locales match a request.
    static func covers(_ tag: String, requested: String) -> Bool {
        let wanted = normalized(requested)
        let prefix = normalized(tag)
        return wanted == prefix || wanted.hasPrefix(prefix + "-")
    }
}
