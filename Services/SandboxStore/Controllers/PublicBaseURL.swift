import Foundation
import Hummingbird

/// The URL clients reach this store at: `SHOPKEEPER_SANDBOX_PUBLIC_URL` (without a final `/`), else the request's
/// host.
enum PublicBaseURL {
    static func of(_ publicURL: URL?, _ request: Request) -> String {
        if let publicURL {
            var text = publicURL.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return "http://" + (request.head.authority ?? "127.0.0.1:8090")
    }
}
