/// Google's `Money` (`google.type.Money`), as the Android Publisher monetization API writes prices: whole `units`
/// (an int64, which Google's JSON writes as a string) and `nanos` (billionths, of the same sign).
package struct GoogleMoney: Codable, Hashable, Sendable {
    /// ISO 4217.
    package var currencyCode: String
    /// Whole units, as a decimal string (`"0"` or absent for less than one unit).
    package var units: String?
    /// Billionths of a unit, -999,999,999 to 999,999,999.
    package var nanos: Int?

    package init(currencyCode: String, units: String?, nanos: Int?) {
        self.currencyCode = currencyCode
        self.units = units
        self.nanos = nanos
    }

    /// The amount written as a plain decimal (`1.99`, `10`, `0.5`): `nil` a non-negative decimal with more than nine
    /// fractional digits, or not a decimal at all.
    package init?(currencyCode: String, decimal: String) {
        let parts = decimal.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit)
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty,
            let units = Int64(whole)
        else { return nil }
        self.init(
            currencyCode: currencyCode, units: String(units),
            nanos: Int(fraction.padding(toLength: 9, withPad: "0", startingAt: 0)) ?? 0)
    }

    /// The amount as a plain decimal string (`1.99`, `10`), `nil` when `units` is not a number or the signs of
    /// `units` and `nanos` disagree.
    package var decimal: String? {
        let whole = units.map { Int64($0) } ?? 0
        let billionths = nanos ?? 0
        guard let whole, abs(billionths) < 1_000_000_000,
            whole == 0 || billionths == 0 || (whole > 0) == (billionths > 0)
        else { return nil }
        let negative = whole < 0 || billionths < 0
        var fraction = String(abs(billionths))
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(abs(whole)) + (fraction.isEmpty ? "" : "." + fraction)
    }

    private enum CodingKeys: String, CodingKey {
        case currencyCode, units, nanos
    }

    /// `units` is read as Google writes it (a string) or as a plain number.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currencyCode = try container.decode(String.self, forKey: .currencyCode)
        if let text = try? container.decodeIfPresent(String.self, forKey: .units) {
            units = text
        } else {
            units = try container.decodeIfPresent(Int64.self, forKey: .units).map(String.init)
        }
        nanos = try container.decodeIfPresent(Int.self, forKey: .nanos)
    }
}

extension Character {
    /// `0` to `9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
