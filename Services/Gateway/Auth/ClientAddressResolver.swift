import HTTPTypes
import NIOCore
import ShopkeeperHTTP

/// Works out which client a request comes from, for the per-client rate limits of public keys.
///
/// A client chooses every header and every id it sends, and can change them on each request; the one thing it cannot
/// choose freely is the address its connection comes from. So the peer address is the client, unless the peer is a
/// trusted proxy (`SHOPKEEPER_GATEWAY_TRUSTED_PROXIES`): then `X-Forwarded-For` is read from the right (each proxy
/// appends the address it saw) past the trusted proxies, and the first address that is not one of them is the
/// client. Entries left of it were written by the client and are ignored; a malformed entry ends the walk, and the
/// request counts against the last trusted hop.
struct ClientAddressResolver: Sendable {
    /// The proxies whose `X-Forwarded-For` is believed.
    let trustedProxies: [IPNetwork]

    /// The header that carries forwarded addresses.
    static let forwardedFor: HTTPField.Name = "x-forwarded-for".fieldName

    /// Whether `X-Forwarded-For` is read at all (otherwise callers need not collect it).
    var readsForwardedFor: Bool { !trustedProxies.isEmpty }

    /// Whom a request with `identity` counts against: its client for a public key; nothing for a secret key, whose
    /// one bucket counts every request (the arguments are then not evaluated).
    func client(
        of identity: KeyIdentity, peer: @autoclosure () -> SocketAddress?,
        forwardedFor: @autoclosure () -> [String]
    ) -> ClientKey {
        guard identity.kind == .public else { return .unknown }
        return client(peer: peer(), forwardedFor: readsForwardedFor ? forwardedFor() : [])
    }

    /// The client of a request that arrived from `peer` with these `X-Forwarded-For` values (in header order).
    func client(peer: SocketAddress?, forwardedFor: [String]) -> ClientKey {
        guard let peerAddress = peer.flatMap(Self.address(of:)) else { return .unknown }
        guard isTrusted(peerAddress), !forwardedFor.isEmpty else { return ClientKey(peerAddress) }
        var client = peerAddress
        for value in forwardedFor.reversed() {
            for entry in value.split(separator: ",").reversed() {
                guard let hop = IPAddress(Self.trimmed(entry)) else { return ClientKey(client) }
                client = hop
                if !isTrusted(hop) { return ClientKey(hop) }
            }
        }
        return ClientKey(client)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = text.drop(while: isSpace)
        return start.dropLast(start.reversed().prefix(while: isSpace).count)
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The IP address of a socket address; `nil` for a Unix domain socket.
    static func address(of socketAddress: SocketAddress) -> IPAddress? {
        switch socketAddress {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { IPAddress(bytes: Array($0)) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { IPAddress(bytes: Array($0)) }
        case .unixDomainSocket: nil
        }
    }
}
