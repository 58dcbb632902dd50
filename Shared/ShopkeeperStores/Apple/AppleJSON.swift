import Foundation

/// The one way Apple's JSON payloads are decoded (signed transactions, renewal info, app transactions and
/// notifications, whether verified now or decoded again from storage).
///
/// Apple's documentation types every `...Date` field as a whole number of UNIX milliseconds, and the App Store signs
/// them so; Xcode's StoreKit Testing (the `Xcode` environment) signs them with a fraction, e.g.
/// `1697679936056.485`, which Foundation refuses to decode as the models' `Int64`. Apple's Java and Python libraries
/// read such a date and keep the whole milliseconds; this does the same: only when the plain decode fails, every
/// non-integer number under a key ending in `Date` is floored to whole milliseconds and the JSON decoded again. The
/// models keep their `Int64` fields, and the common case pays for nothing.
package enum AppleJSON {
    /// One decoder for every payload (Foundation's decoder is safe to share).
    private static let decoder = JSONDecoder()

    /// Decodes Apple's JSON `bytes` as `T`, accepting dates with fractional milliseconds.
    package static func decode<T: Decodable>(_: T.Type = T.self, from bytes: Data) throws -> T {
        do {
            return try decoder.decode(T.self, from: bytes)
        } catch {
            guard let whole = wholeMillisecondDates(in: bytes) else { throw error }
            return try decoder.decode(T.self, from: whole)
        }
    }

    /// `bytes` with every fractional number of a `...Date` key floored, or `nil` when there is none (the failure
    /// had another cause) or `bytes` is not a JSON object.
    static func wholeMillisecondDates(in bytes: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any] else { return nil }
        var changed = false
        let floored = floorDates(in: object, changed: &changed)
        guard changed else { return nil }
        return try? JSONSerialization.data(withJSONObject: floored)
    }

    private static func floorDates(in object: [String: Any], changed: inout Bool) -> [String: Any] {
        var result = object
        for (key, value) in object {
            switch value {
            case let nested as [String: Any]:
                result[key] = floorDates(in: nested, changed: &changed)
            case let number as NSNumber where key.hasSuffix("Date"):
                let double = number.doubleValue
                guard double.isFinite, double.rounded(.down) != double,
                    let whole = Int64(exactly: double.rounded(.down))
                else { continue }
                result[key] = NSNumber(value: whole)
                changed = true
            default:
                continue
            }
        }
        return result
    }
}

extension CompactJWS {
    /// The payload decoded as Apple's JSON (``AppleJSON``), or `nil` when it is not a `T`. For a JWS whose signature
    /// was verified before (it is read back from storage).
    package func appleDecodedPayload<T: Decodable>(as _: T.Type = T.self) -> T? {
        try? AppleJSON.decode(T.self, from: Data(payload))
    }
}
