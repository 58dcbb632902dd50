/// One signing secret of an app's customer tokens (HS256): its id, sent as the token's `kid`, and its text, whose
/// UTF-8 bytes are the HMAC key (so the developer's server can hand the text to any JWT library as it is).
package struct CustomerTokenSecret: Sendable, Hashable {
    package var id: String
    package var secret: String

    package init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }

    /// The prefix of a secret's text, so that a leaked one is recognizable in a scan.
    package static let textPrefix = "cts_"
}
