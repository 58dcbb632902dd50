import Foundation

/// An ISO 8601 duration such as `P1Y`, `P1M`, `P7D`, `P2W` or `PT12H`, as used for subscription periods and trials.
package struct ISODuration: Sendable, Hashable, TextCodable {
    package var years = 0
    package var months = 0
    package var weeks = 0
    package var days = 0
    package var hours = 0
    package var minutes = 0
    package var seconds = 0

    /// Parses `PnYnMnWnDTnHnMnS` with whole numbers; at least one part, and not all of them zero.
    package init?(_ text: String) {
        var rest = Substring(text.uppercased())
        guard rest.hasPrefix("P"), rest.count > 1 else { return nil }
        rest = rest.dropFirst()
        var inTime = false
        var number = ""
        var sawPart = false
        var sawTimePart = false
        for character in rest {
            if character.isASCIIDigit {
                number.append(character)
                guard number.count <= 6 else { return nil }
                continue
            }
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            guard let value = Int(number) else { return nil }
            number = ""
            sawPart = true
            sawTimePart = sawTimePart || inTime
            switch (inTime, character) {
            case (false, "Y"): years = value
            case (false, "M"): months = value
            case (false, "W"): weeks = value
            case (false, "D"): days = value
            case (true, "H"): hours = value
            case (true, "M"): minutes = value
            case (true, "S"): seconds = value
            default: return nil
            }
        }
        guard number.isEmpty, sawPart, !inTime || sawTimePart else { return nil }
        guard years + months + weeks + days + hours + minutes + seconds > 0 else { return nil }
    }

    package var description: String {
        var text = "P"
        if years > 0 { text += "\(years)Y" }
        if months > 0 { text += "\(months)M" }
        if weeks > 0 { text += "\(weeks)W" }
        if days > 0 { text += "\(days)D" }
        if hours + minutes + seconds > 0 {
            text += "T"
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if seconds > 0 { text += "\(seconds)S" }
        }
        return text
    }

    /// The instant this duration after `date`, in UTC calendar arithmetic (a month from 31 January is 28/29 February).
    package func added(to date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = days + weeks * 7
        components.hour = hours
        components.minute = minutes
        components.second = seconds
        return calendar.date(byAdding: components, to: date) ?? date
    }

    /// How a text that is no duration is told.
    package static let expectedText = "an ISO 8601 duration such as P1Y, P1M, P7D or PT12H"
}
