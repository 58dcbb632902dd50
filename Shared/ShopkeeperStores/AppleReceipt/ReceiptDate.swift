import Foundation
import ShopkeeperCore

/// The date formats of Apple's receipts, computed with integer arithmetic on milliseconds since 1970 so
/// that formatting is exact, locale-free and safe to call from any thread.
enum ReceiptDate {
    /// The largest magnitude accepted, in milliseconds: years -9999 to 9999 fit comfortably.
    private static let limit: Int64 = 253_402_300_800_000

    /// `date` in whole milliseconds since 1970, clamped to ±``limit``.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? limit : -limit }
        return Int64(max(-Double(limit), min(Double(limit), value)))
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` rounded to the millisecond; idempotent.
    static func normalized(_ date: Date) -> Date {
        self.date(milliseconds: milliseconds(date))
    }

    // MARK: RFC 3339, the dates inside the ASN.1 payload

    /// `2023-01-01T12:00:00Z`, with `.SSS` before the `Z` when the date has milliseconds; `nil` outside years 0…9999.
    static func rfc3339(_ date: Date) -> String? {
        let parts = Civil(milliseconds: milliseconds(date))
        guard (0...9999).contains(parts.year) else { return nil }
        var text =
            "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
            + "T\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))"
        if parts.millisecond != 0 {
            text += ".\(pad(parts.millisecond, 3))"
        }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` strictly (fraction digits beyond milliseconds are dropped).
    static func parseRFC3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")),
            (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }) else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var millisecond: Int64 = 0
        if bytes.count > 20 {
            // ".f…fZ": one to nine fraction digits.
            guard bytes[19] == UInt8(ascii: "."), bytes.count >= 22,
                let fraction = number(20..<(bytes.count - 1))
            else { return nil }
            let digits = bytes.count - 21
            var scaled = fraction
            for _ in 0..<max(0, digits - 3) { scaled /= 10 }
            for _ in 0..<max(0, 3 - digits) { scaled *= 10 }
            millisecond = scaled
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        guard (1...12).contains(month), (1...Civil.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Civil.days(year: year, month: month, day: day)
        let total = ((days * 24 + hour) * 60 + minute) * 60 + second
        return date(milliseconds: total * 1000 + millisecond)
    }

    // MARK: verifyReceipt JSON

    /// `2023-01-01 12:00:00 Etc/GMT`, the `verifyReceipt` JSON format of a date.
    static func gmt(_ date: Date) -> String {
        let parts = Civil(milliseconds: milliseconds(date))
        return "\(parts.dateAndTime) Etc/GMT"
    }

    /// `2023-01-01 04:00:00 America/Los_Angeles`, the `*_pst` field of a date.
    static func pacific(_ date: Date) -> String {
        let zone = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600) ?? .gmt
        let offset = Int64(zone.secondsFromGMT(for: normalized(date))) * 1000
        let parts = Civil(milliseconds: milliseconds(date) + offset)
        return "\(parts.dateAndTime) America/Los_Angeles"
    }

    /// Milliseconds as `verifyReceipt` writes them: a decimal string.
    static func millisecondsString(_ date: Date) -> String {
        String(milliseconds(date))
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// A proleptic Gregorian date and time in UTC (Howard Hinnant's civil-from-days algorithm).
    private struct Civil {
        var year: Int64, month: Int64, day: Int64
        var hour: Int64, minute: Int64, second: Int64, millisecond: Int64

        init(milliseconds: Int64) {
            let msPerDay: Int64 = 86_400_000
            var days = milliseconds / msPerDay
            var rest = milliseconds % msPerDay
            if rest < 0 {
                rest += msPerDay
                days -= 1
            }
            millisecond = rest % 1000
            second = (rest / 1000) % 60
            minute = (rest / 60_000) % 60
            hour = rest / 3_600_000
            let date = CivilDate.date(daysSince1970: Int(days))
            (year, month, day) = (Int64(date.year), Int64(date.month), Int64(date.day))
        }

        var dateAndTime: String {
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        }

        /// Days since 1970-01-01 of a civil date.
        static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
            let shiftedYear = month <= 2 ? year - 1 : year
            let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
            let yearOfEra = shiftedYear - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }

        static func daysIn(month: Int64, year: Int64) -> Int64 {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }
    }
}
