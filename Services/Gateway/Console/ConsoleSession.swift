import Crypto
import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// A live console session: the app it acts for, and with which key (`nil`: the operator).
struct ConsoleSession: Sendable, Hashable {
    var sessionID: String
    var appID: String
    var keyID: String?
    var expiresAt: Date
    var idleExpiresAt: Date
    /// The session's CSRF token (derived from its token, never stored).
    var csrfToken: String
    /// The console user of a user's session; `nil` for a key's or the operator's.
    var user: SessionUser? = nil

    var actor: ConsoleActor { user != nil ? .user : keyID == nil ? .operator : .secretKey }

    /// What the session may do (``ConsoleRoles``): its user's role; a key's or the operator's session is admin.
    var role: ConsoleRole { user?.role ?? .admin }

    /// The caller the services see: the same as the secret key's (an operator or user session acts as a secret key
    /// of its app, its rate limit bucket the operator's or the user's), so they cannot tell a console request from a
    /// key's. What a user's session may reach is decided before, by its role (``ConsoleRoles``).
    var identity: KeyIdentity {
        KeyIdentity(keyID: keyID ?? user?.userID ?? ConsoleSession.operatorKeyID, appID: appID, kind: .secret)
    }

    /// The key id of an operator session's identity (its rate limit bucket).
    static let operatorKeyID = "operator"
}

/// The session token in its cookie, and what is derived from it.
enum ConsoleSessionToken {
    /// The cookie's name.
    static let cookieName = "shopkeeper_session"

    /// A new token: 43 base-62 characters (about 256 bits).
    static func generate() -> String {
        RandomToken.base62(length: 43)
    }

    /// What is stored and looked up: SHA-256 of the token.
    static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }

    /// The session's CSRF token: an HMAC of a fixed label under the session token, so it needs no storage and
    /// tells nothing about the token.
    static func csrfToken(for token: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("shopkeeper-console-csrf".utf8), using: SymmetricKey(data: Array(token.utf8)))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The session token of a request's `Cookie` headers, when one is well formed.
    static func token(inCookies headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if value.utf8.count == 43, value.utf8.allSatisfy(isAlphanumeric) { return value }
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that stores `token` for `maxAge`: `HttpOnly`, `SameSite=Strict`, `Path=/`, and
    /// `Secure` unless the browser reached the gateway as `localhost` (where plain http is the norm).
    static func setCookie(_ token: String, maxAge: Duration, secure: Bool) -> String {
        "\(cookieName)=\(token); Path=/; Max-Age=\(maxAge.components.seconds); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes the cookie.
    static func clearCookie(secure: Bool) -> String {
        setCookie("", maxAge: .zero, secure: secure)
    }

    /// Whether a request's host (`Host`, with or without a port) is this machine: cookies go without `Secure`.
    static func isLocal(host: String?) -> Bool {
        guard var host = host?.lowercased() else { return false }
        if host.hasPrefix("[") {
            host = String(host.prefix { $0 != "]" }.dropFirst())
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        return host == "localhost" || host == "127.0.0.1" || host == "::1"
    }

    /// The fingerprint of the operator key an operator session is opened with: an HMAC under the master key, so
    /// the database never holds anything an operator key can be guessed from offline.
    static func operatorFingerprint(_ operatorKey: String, masterKey: String) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(
                for: Array(operatorKey.utf8), using: SymmetricKey(data: Array("console-operator|\(masterKey)".utf8))))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
    }
}
