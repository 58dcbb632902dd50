import ShopkeeperHTTP
import ShopkeeperModels

/// A request path that names a customer, `/v1/customers/{app_user_id}/...`, with the id decoded once.
///
/// The gateway decodes the id however the client spelled it (``AppUserID/decode(segment:)``), compares a customer
/// token with that id, and forwards the path with the id in its one canonical spelling (``AppUserID/segment(_:)``),
/// which the signature covers and the services read as is. So `bob%41`, `bobA` and `%62obA` are one customer
/// everywhere, and a token for one id can never act on another.
struct CustomerPath: Sendable, Equatable {
    /// The customer the path names, canonical.
    var appUserID: String
    /// The request target as forwarded: the id's segment spelled canonically, everything else as sent.
    var forwardedTarget: String

    /// The customer path of a request target (path and query), or `nil` when the path names no customer. Throws
    /// `400 invalid_url` for an id spelled with a malformed percent-encoding and `422` for an id that breaks the
    /// rule (``AppUserID``).
    init?(target: String) throws(RequestError) {
        let query = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = target[..<(query ?? target.endIndex)]
        guard let segment = Self.idSegment(of: path) else { return nil }
        let id: String
        do {
            id = try AppUserID.decode(segment: segment)
        } catch .malformedEncoding {
            throw .invalidURL("The app user id in the path \(AppUserID.Problem.malformedEncoding.detail).")
        } catch {
            throw .invalid("app_user_id", AppUserID.rule)
        }
        self.appUserID = id
        self.forwardedTarget =
            String(target[..<segment.startIndex]) + AppUserID.segment(id) + String(target[segment.endIndex...])
    }

    /// The `{app_user_id}` segment of `path` as sent, when `path` is `/v1/customers/{app_user_id}` or below. Empty
    /// segments are skipped, as the routers skip them.
    static func idSegment(of path: Substring) -> Substring? {
        idSegment(in: path.split(separator: "/"))
    }

    /// ``idSegment(of:)`` of a path already split at its slashes (empty segments omitted).
    static func idSegment(in segments: [Substring]) -> Substring? {
        guard segments.count >= 3, segments[0] == "v1", segments[1] == "customers" else { return nil }
        return segments[2]
    }

    /// Whether `path` may be forwarded exactly as sent (``isForwardableAsSent(segments:)``).
    static func isForwardableAsSent(_ path: Substring) -> Bool {
        isForwardableAsSent(segments: path.split(separator: "/"))
    }

    /// Whether a path (split at its slashes, empty segments omitted) may be forwarded exactly as sent: it names no
    /// customer, or its id is already spelled the one canonical way in plain characters (what apps send for ids
    /// such as `anon_<uuid>`; anything else goes through ``init(target:)`` on the router path).
    static func isForwardableAsSent(segments: [Substring]) -> Bool {
        guard let segment = idSegment(in: segments) else { return true }
        return segment.utf8.count <= AppUserID.maximumLength && segment.utf8.allSatisfy(AppUserID.isPlain)
            && segment != "." && segment != ".."
    }
}
