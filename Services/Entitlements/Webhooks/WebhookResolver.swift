import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a webhook's host name to the addresses a delivery may connect to.
///
/// The dispatcher resolves each name once per attempt, checks every address and connects to a checked one, so a
/// DNS answer that changes between the check and the connection (rebinding) is never used.
protocol WebhookResolver: Sendable {
    /// The addresses of `host` (a name, or a literal in a form only the system resolver reads, such as
    /// `0x7f000001`); throws ``WebhookFailure/dns`` when there are none.
    func addresses(of host: String) async throws(WebhookFailure) -> [IPAddress]
}

/// ``WebhookResolver`` through the system's `getaddrinfo` (`/etc/hosts`, then DNS), on NIO's blocking-I/O threads.
struct SystemWebhookResolver: WebhookResolver {
    func addresses(of host: String) async throws(WebhookFailure) -> [IPAddress] {
        let found: [IPAddress]
        do {
            found = try await NIOThreadPool.singleton.runIfActive { Self.lookUp(host) }
        } catch {
            throw .dns
        }
        guard !found.isEmpty else { throw .dns }
        return found
    }

    /// Every IPv4 and IPv6 address `getaddrinfo` gives for `host`, in its order; empty when it fails.
    static func lookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next?.pointee {
            next = entry.ai_next
            guard let socket = entry.ai_addr else { continue }
            switch entry.ai_family {
            case AF_INET:
                let address = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                addresses.append(.v4(UInt32(bigEndian: address.s_addr)))
            case AF_INET6:
                var address = socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                addresses.append(.v6(withUnsafeBytes(of: &address) { Array($0) }))
            default:
                continue
            }
        }
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
