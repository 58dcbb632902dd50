import Foundation
import ShopkeeperCore

/// A UTC calendar day, as the reports name them: `2025-03-01`. Every report counts in UTC days.
package struct ReportDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    package let ordinal: Int

    package init(ordinal: Int) {
        self.ordinal = ordinal
    }

    /// The UTC day `date` falls on.
    package init(containing date: Date) {
        ordinal = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// Reads `YYYY-MM-DD` (a real date of the years 1970 to 9999); `nil` for anything else.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1970...9999).contains(year), (1...12).contains(month),
            (1...Self.days(inMonth: month, of: year)).contains(day)
        else { return nil }
        ordinal = Self.ordinal(year: year, month: month, day: day)
    }

    /// The first instant of the day.
    package var start: Date { Date(timeIntervalSince1970: Double(ordinal) * 86_400) }

    /// The day after.
    package var next: ReportDay { ReportDay(ordinal: ordinal + 1) }

    /// `YYYY-MM-DD`.
    package var description: String {
        let (year, month, day) = Self.civil(ordinal)
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    package static func < (lhs: ReportDay, rhs: ReportDay) -> Bool { lhs.ordinal < rhs.ordinal }

    /// The number of days in `month` of `year` (Gregorian).
    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a Gregorian date.
    static func ordinal(year: Int, month: Int, day: Int) -> Int {
        CivilDate.daysSince1970(year: year, month: month, day: day)
    }

    /// The Gregorian date of a day ordinal.
    static func civil(_ ordinal: Int) -> (year: Int, month: Int, day: Int) {
        CivilDate.date(daysSince1970: ordinal)
    }
}
