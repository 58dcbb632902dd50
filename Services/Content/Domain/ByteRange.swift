/// The part of a file a download sends: the whole file (200) or one `Range` (206).
enum ByteRangeRequest: Equatable {
    /// No usable `Range`: send everything (also for several ranges, which RFC 9110 lets a server ignore).
    case whole
    /// One satisfiable range, inclusive.
    case partial(ClosedRange<Int64>)
    /// A well-formed range that lies outside the file: 416.
    case unsatisfiable

    /// Interprets a `Range` header value against a file of `size` bytes (RFC 9110 section 14.1.2): `bytes=a-b`,
    /// `bytes=a-` and `bytes=-n`. Anything malformed, other units and several ranges are ignored (whole file).
    static func parse(_ header: String?, size: Int64) -> ByteRangeRequest {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return .whole }
        if first.isEmpty {
            // A suffix: the last n bytes.
            guard let count = Int64(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - count)...(size - 1))
        }
        guard let start = Int64(first) else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .partial(start...(size - 1)) }
        guard let end = Int64(last), end >= start else { return .whole }
        return .partial(start...min(end, size - 1))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
