/// `If-None-Match` evaluation (RFC 9110 section 13.1.2), shared by the services and the gateway.
package enum ETagMatch {
    /// Whether `header` (`*` or a comma-separated list of entity tags, weak ones allowed) matches `etag`.
    package static func matches(_ header: String, etag: String) -> Bool {
        let etag = etag.utf8
        return header.utf8.split(separator: UInt8(ascii: ",")).contains { candidate in
            let trimmed = candidate.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            let tag = Array(trimmed.reversed())
            if tag.elementsEqual("*".utf8) || tag.elementsEqual(etag) { return true }
            return tag.starts(with: "W/".utf8) && tag.dropFirst(2).elementsEqual(etag)
        }
    }
}
