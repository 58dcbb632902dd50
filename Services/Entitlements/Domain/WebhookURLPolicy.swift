import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which webhook URLs an app may set: absolute `http`/`https` URLs of bounded length, and, unless the deployment
/// allows them, none that names a loopback, private, link-local or otherwise non-public host literally.
///
/// Only what the URL itself says is checked (IP literals in any form the resolver accepts, `localhost`): a public
/// name whose DNS record points at a private address is not caught here.
struct WebhookURLPolicy: Sendable {
    /// Longest URL accepted.
    static let maximumLength = 2048

    /// Whether loopback and private hosts are allowed (development), or refused (production).
    var allowPrivateHosts: Bool

    /// Why `text` is not an acceptable webhook URL, or `nil` when it is.
    func problem(with text: String) -> String? {
        guard text.utf8.count <= Self.maximumLength else {
            return "must be at most \(Self.maximumLength) characters"
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            return "must be an absolute http or https URL"
        }
        guard components.fragment == nil else { return "must not have a fragment" }
        if !allowPrivateHosts, Self.isNonPublic(host: host) {
            return "must not name a loopback, private or link-local host on this server"
        }
        return nil
    }

    /// Whether `host` (a URL's host, IPv6 in brackets or not) names a host that is not on the public internet.
    static func isNonPublic(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        if name.isEmpty || name == "localhost" || name.hasSuffix(".localhost") { return true }
        if name.contains(":") {
            // A zone id (`fe80::1%eth0`) only exists for link-local addresses.
            if name.contains("%") { return true }
            guard let bytes = ipv6Bytes(name) else { return false }
            return isNonPublic(ipv6: bytes)
        }
        guard let address = ipv4Address(name) else { return false }
        return isNonPublic(ipv4: address)
    }

    /// Parses an IPv4 literal the way the system resolver does (`127.1`, `0x7f000001` and `2130706433` included).
    static func ipv4Address(_ text: String) -> UInt32? {
        var address = in_addr()
        guard inet_aton(text, &address) != 0 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }

    /// Parses an IPv6 literal into its 16 bytes.
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
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

    /// Unspecified, loopback, unique-local, link-local, site-local and multicast addresses, and IPv4 addresses
    /// mapped into IPv6 (`::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, the old `::a.b.c.d`) by their IPv4 part.
    static func isNonPublic(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        let embedded = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) {
            if bytes[10] == 0xFF, bytes[11] == 0xFF { return isNonPublic(ipv4: embedded) }
            if bytes[10] == 0, bytes[11] == 0 {
                // `::` and `::1`, or an IPv4-compatible address.
                return embedded <= 1 || isNonPublic(ipv4: embedded)
            }
        }
        if Array(bytes[0..<12]) == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isNonPublic(ipv4: embedded)
        }
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if bytes[0] == 0xFE, bytes[1] & 0x80 == 0x80 { return true }  // fe80::/10 link-local, fec0::/10 site-local
        if bytes[0] == 0xFF { return true }  // multicast
        return false
    }
}
