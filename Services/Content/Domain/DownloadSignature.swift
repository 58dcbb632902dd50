import Crypto
import Foundation
import ShopkeeperCore

/// What a download URL grants: one file of one version of one app's product pack, to one customer on one device,
/// until a moment.
struct DownloadGrant: Sendable, Equatable {
    var pack: PackVersion
    var path: ContentPath
    var appUserID: String
    var deviceID: String
    /// Unix seconds after which the URL no longer works.
    var expires: Int64
}

/// Signs and checks download URLs with HMAC-SHA256 under the configured key.
///
/// The signed message is a version tag and every field of the ``DownloadGrant``, each preceded by its UTF-8 length,
/// so no two different grants have the same message (a field cannot borrow another's bytes). Checking recomputes
/// the MAC and compares it in constant time (`HMAC.isValidAuthenticationCode`).
struct DownloadSignature: Sendable {
    private let key: SymmetricKey

    init(secret: String) {
        key = SymmetricKey(data: Data(secret.utf8))
    }

    /// The hex MAC of `grant`.
    func sign(_ grant: DownloadGrant) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Self.message(grant), using: key)).hexString
    }

    /// Whether `signature` (hex) is `grant`'s MAC; comparison in constant time.
    func isValid(_ signature: String, for grant: DownloadGrant) -> Bool {
        guard signature.utf8.count == 64, let mac = Data(hexString: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Self.message(grant), using: key)
    }

    private static func message(_ grant: DownloadGrant) -> Data {
        var message = Data("shopkeeper-download-v1".utf8)
        for field in [
            grant.pack.appID, grant.pack.productID, grant.pack.version, grant.path.value, grant.appUserID,
            grant.deviceID, String(grant.expires),
        ] {
            message.append(contentsOf: "\n\(field.utf8.count):".utf8)
            message.append(contentsOf: field.utf8)
        }
        return message
    }

    /// The download URL of `grant` (path and query), relative to the API's base.
    func url(for grant: DownloadGrant) -> String {
        let query = [
            ("file", grant.path.value), ("user", grant.appUserID), ("device", grant.deviceID),
            ("expires", String(grant.expires)), ("signature", sign(grant)),
        ].map { "\($0)=\(Self.escape($1))" }.joined(separator: "&")
        return "/v1/downloads/\(grant.pack.appID)/\(grant.pack.productID)/\(grant.pack.version)?\(query)"
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

    /// Percent-encodes everything but RFC 3986 unreserved characters (and `/` in file paths).
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
