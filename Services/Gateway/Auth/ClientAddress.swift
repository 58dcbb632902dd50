#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16); an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as a dual-stack
/// listener reports IPv4 peers) is the IPv4 address.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        self.bytes = bytes.count == 16 && bytes.prefix(12).elementsEqual(mapped) ? Array(bytes.suffix(4)) : bytes
    }

    /// Parses the text form (`192.0.2.1`, `2001:db8::1`, also `[2001:db8::1]`); `nil` for anything else.
    init?(_ text: some StringProtocol) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 16)
        let string = String(text)
        if string.contains(":") {
            guard inet_pton(AF_INET6, string, &buffer) == 1 else { return nil }
            self.init(bytes: buffer)
        } else {
            guard inet_pton(AF_INET, string, &buffer) == 1 else { return nil }
            self.init(bytes: Array(buffer.prefix(4)))
        }
    }

    var isIPv4: Bool { bytes.count == 4 }

    var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

/// An address block (`10.0.0.0/8`, `2001:db8::/32`), or one address (`192.0.2.1`).
struct IPNetwork: Hashable, Sendable {
    let address: IPAddress
    let prefixLength: Int

    /// Parses `address` or `address/length`; `nil` when either part is malformed.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let bits = address.bytes.count * 8
        let length: Int
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed) else { return nil }
            length = parsed
        } else {
            length = bits
        }
        self.address = address
        self.prefixLength = length
    }

    func contains(_ other: IPAddress) -> Bool {
        guard other.bytes.count == address.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(address.bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }
}

/// Whom a public key's per-client rate limit counts a request against: an IPv4 address, or an IPv6 /64 (one
/// subscriber's network: a client can pick any of its 2^64 addresses at will, so counting them one by one would not
/// limit it at all).
enum ClientKey: Hashable, Sendable {
    case ipv4(UInt32)
    case ipv6Network(UInt64)
    /// No address (not a TCP connection): all such callers share one bucket.
    case unknown

    init(_ address: IPAddress) {
        if address.isIPv4 {
            self = .ipv4(address.bytes.reduce(0) { $0 << 8 | UInt32($1) })
        } else {
            self = .ipv6Network(address.bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
        }
    }
}
