import Crypto
import Foundation
import ShopkeeperCore

/// Customer info as text: the stored body completed by the reader, and its entity tag.
package enum CustomerInfoText {
    /// The `Cache-Control` of every customer info answer: the client keeps it, and asks again with its tag.
    package static let cacheControl = "private, no-cache"

    /// The info: `app_user_id` and `last_seen` first, then the stored `body` (a JSON object) without its `{`. The same
    /// bytes as the SQL that renders it writes (`to_json` of the id, `entitlements.iso` of the time).
    package static func assemble(body: String, appUserID: String, lastSeen: Date) -> String {
        var json = "{\"app_user_id\":"
        json.reserveCapacity(body.utf8.count + appUserID.utf8.count + 64)
        json += JSONString.quoted(appUserID)
        json += ",\"last_seen\":\""
        json += timestamp(lastSeen)
        json += "\","
        json += body.dropFirst()
        return json
    }

    /// A strong entity tag of `json`: the first 12 bytes of its SHA-256, in hex, quoted.
    package static func etag(of json: String) -> String {
        let digest = SHA256.hash(data: Data(json.utf8))
        return "\"" + Data(digest.prefix(12)).hexString + "\""
    }

    /// `date` in UTC to the second, as `entitlements.iso` writes it (`2026-11-27T03:29:11Z`, fractions cut).
    package static func timestamp(_ date: Date) -> String {
        // Whole microseconds first (PostgreSQL's precision), so that a time on a second boundary stays on it.
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: Int(days))
        var text = ""
        text.reserveCapacity(20)
        append(Int64(year), width: 4, to: &text)
        text += "-"
        append(Int64(month), width: 2, to: &text)
        text += "-"
        append(Int64(day), width: 2, to: &text)
        text += "T"
        append(secondOfDay / 3600, width: 2, to: &text)
        text += ":"
        append(secondOfDay / 60 % 60, width: 2, to: &text)
        text += ":"
        append(secondOfDay % 60, width: 2, to: &text)
        text += "Z"
        return text
    }

    private static func append(_ value: Int64, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }
}
