/// A dotted numeric app version such as `1`, `2.0` or `1.10.3`, compared component by component.
///
/// Missing components count as zero, so `2` equals `2.0.0`.
package struct AppVersion: Sendable, Hashable, Comparable, TextCodable {
    /// The numeric components, most significant first.
    package let components: [Int]

    /// Parses one to four dot-separated non-negative integers of at most six digits each.
    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var components: [Int] = []
        for part in parts {
            guard (1...6).contains(part.count), part.allSatisfy(\.isASCIIDigit), let value = Int(part) else {
                return nil
            }
            components.append(value)
        }
        self.components = components
    }

    package var description: String { components.map(String.init).joined(separator: ".") }

    package static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    package static func == (lhs: AppVersion, rhs: AppVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    package func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    /// How a text that is no version is told.
    package static let expectedText = "a version: use one to four dot-separated numbers such as 1.2.3"
}

extension Character {
    /// `0`-`9` only (unlike `isNumber`, which accepts other scripts' digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
