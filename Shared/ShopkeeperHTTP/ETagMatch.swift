/// `If-None-Match` evaluation (RFC 9110 section 13.1.2), shared by the services and the gateway.
package enum ETagMatch {
    /// Whether `header` (`*` or a comma-separated list of entity tags, weak ones allowed) matches `etag`.
    package static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }
}
