#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log timestamps: RFC 3339 in UTC with milliseconds (`2026-05-01T09:41:07.042Z`), written by hand from
/// `clock_gettime` and `gmtime_r`: no formatter, no `Date`, no locale, one small string a line.
package enum LogTimestamp {
    /// The current wall-clock time.
    package static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec) / 1_000_000)
    }

    /// `seconds` since the Unix epoch plus `milliseconds` (0-999), in UTC.
    package static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(Int(parts.tm_year) + 1900, digits: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mday), digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        append(Int(parts.tm_hour), digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_min), digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(Int(parts.tm_sec), digits: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        append(min(max(milliseconds, 0), 999), digits: 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` in decimal, zero-padded to `digits`.
    private static func append(_ value: Int, digits: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
