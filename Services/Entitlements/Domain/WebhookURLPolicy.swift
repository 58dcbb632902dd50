import Foundation

/// Which webhook URLs an app may set: absolute `http`/`https` URLs of bounded length, and, unless the deployment
/// allows them (`SHOPKEEPER_WEBHOOK_ALLOW_PRIVATE_HOSTS`), none that names a loopback, private, link-local or
/// otherwise non-public host literally.
///
/// This is the early check, at save time, of what the URL itself says (IP literals in any form the resolver
/// accepts, `localhost`). A name whose DNS record points at a private address is caught at each attempt, where
/// ``WebhookDestination`` resolves the name once, checks every address and connects to the checked one.
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
            return IPAddress(literal: name)?.isNonPublic ?? false
        }
        return IPAddress.lenientIPv4(name)?.isNonPublic ?? false
    }
}
