#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address, and whether it is on the public internet: the rule the webhook policy checks both the
/// literal hosts of URLs and every address a webhook's name resolves to against.
enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address, host byte order.
    case v4(UInt32)
    /// The 16 bytes of an IPv6 address.
    case v6([UInt8])

    /// Parses a strict literal: dotted-quad IPv4 or IPv6 without brackets (`inet_pton`).
    init?(literal text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// Parses an IPv4 literal the way the system resolver does (`127.1`, `0x7f000001`, `2130706433` and
    /// `017700000001` included).
    static func lenientIPv4(_ text: String) -> IPAddress? {
        var address = in_addr()
        guard inet_aton(text, &address) != 0 else { return nil }
        return .v4(UInt32(bigEndian: address.s_addr))
    }

    /// The canonical text (`127.0.0.1`, `::1`), as a connection target takes it.
    var description: String {
        switch self {
        case .v4(let value):
            return [24, 16, 8, 0].map { String(value >> UInt32($0) & 0xFF) }.joined(separator: ".")
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes.prefix(16)) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Whether the address is anything but a public unicast address: loopback, private, shared, link-local
    /// (cloud metadata services at `169.254.169.254` and `fd00:ec2::254` included), unspecified, multicast,
    /// reserved or broadcast, and IPv6 addresses that embed such an IPv4 address.
    var isNonPublic: Bool {
        switch self {
        case .v4(let value): Self.isNonPublic(ipv4: value)
        case .v6(let bytes): Self.isNonPublic(ipv6: bytes)
        }
    }

    /// Loopback, private (RFC 1918), shared (RFC 6598), link-local, "this network", IETF protocol assignments,
    /// benchmarking, multicast, reserved and broadcast ranges.
    static func isNonPublic(ipv4 address: UInt32) -> Bool {
        let ranges: [(network: UInt32, prefix: UInt32)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16),
            (0xAC10_0000, 12), (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 4),
            (0xF000_0000, 4),
        ]
        return ranges.contains { range in
            let mask: UInt32 = range.prefix == 0 ? 0 : ~UInt32(0) << (32 - range.prefix)
            return address & mask == range.network
        }
    }

    /// Unspecified, loopback, unique-local, link-local, site-local, discard-only and multicast addresses, and IPv4
    /// addresses carried in IPv6 (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`,
    /// the old `::a.b.c.d`) by their IPv4 part.
    static func isNonPublic(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        let embedded = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if bytes[0..<8].allSatisfy({ $0 == 0 }) {
            let middle = Array(bytes[8..<12])
            if middle == [0, 0, 0xFF, 0xFF] || middle == [0xFF, 0xFF, 0, 0] { return isNonPublic(ipv4: embedded) }
            if middle == [0, 0, 0, 0] {
                // `::` and `::1`, or an IPv4-compatible address.
                return embedded <= 1 || isNonPublic(ipv4: embedded)
            }
        }
        if Array(bytes[0..<12]) == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isNonPublic(ipv4: embedded)
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 {
            return isNonPublic(ipv4: bytes[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        if Array(bytes[0..<8]) == [0x01, 0, 0, 0, 0, 0, 0, 0] { return true }  // 100::/64 discard-only
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if bytes[0] == 0xFE, bytes[1] & 0x80 == 0x80 { return true }  // fe80::/10 link-local, fec0::/10 site-local
        if bytes[0] == 0xFF { return true }  // multicast
        return false
    }
}
