import Foundation

/// Where one delivery attempt connects: the URL's host checked, and, for a name, the one resolved address every
/// check passed, which the request is pinned to (the request still carries the name, as `Host` and as the TLS
/// server name, and the certificate is verified against it).
///
/// Resolving here and connecting to the result, rather than letting the HTTP client resolve the name again, is what
/// keeps DNS rebinding out: an answer that is public at the check and private at the connection is never used.
struct WebhookDestination: Sendable, Equatable {
    /// The URL as stored.
    var url: String
    /// The URL's host as the HTTP client reads it (`URL.host`, IPv6 without brackets).
    var host: String
    /// The address the request connects to.
    var address: IPAddress
    /// Whether ``host`` is a name (or an unusual literal) that the client must be told to map to ``address``.
    var pinned: Bool

    /// The HTTP client's `dnsOverride` for this destination.
    var dnsOverride: [String: String] {
        pinned ? [host: address.description] : [:]
    }

    /// Checks `url` against `policy` and resolves it: every address of the name must pass, and the first is used.
    /// Throws ``WebhookFailure/destinationRefused`` or ``WebhookFailure/dns``.
    static func resolve(
        _ url: String, policy: WebhookURLPolicy, resolver: any WebhookResolver
    ) async throws(WebhookFailure) -> WebhookDestination {
        guard policy.problem(with: url) == nil, let parsed = URL(string: url), var host = parsed.host, !host.isEmpty
        else { throw .destinationRefused }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let literal = IPAddress(literal: host) {
            guard policy.allowPrivateHosts || !literal.isNonPublic else { throw .destinationRefused }
            return WebhookDestination(url: url, host: host, address: literal, pinned: false)
        }
        // A zone id or any other text with a colon is no name a public host has.
        guard !host.contains(":"), !host.contains("%") else { throw .destinationRefused }
        let addresses = try await resolver.addresses(of: host)
        guard let first = addresses.first else { throw .dns }
        if !policy.allowPrivateHosts, addresses.contains(where: \.isNonPublic) { throw .destinationRefused }
        return WebhookDestination(url: url, host: host, address: first, pinned: true)
    }
}
