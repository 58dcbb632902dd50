import Foundation
import ShopkeeperStores
import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state directory (`SHOPKEEPER_SANDBOX_STATE_DIR`): `pki.pem` (the signing chain, made once), `root.pem`
/// (its root, public), the push-token key, and the state: `state.json` (a snapshot) and `state.<generation>.log`
/// (every change since, one JSON line each; see ``StateJournal``), and the same pair for the notifications sent:
/// `notifications.json` and `notifications.<generation>.log`.
struct StateDirectory: Sendable {
    let url: URL

    /// The snapshot of the store's purchases.
    var stateURL: URL { snapshotURL("state") }

    /// The log of changes to the store's purchases made after the snapshot of `generation`.
    func logURL(generation: Int) -> URL { logURL("state", generation: generation) }

    /// The snapshot of the part of the state named `name` (`state`, `notifications`).
    func snapshotURL(_ name: String) -> URL { url.appendingPathComponent("\(name).json") }

    /// The log of changes to the part named `name` made after the snapshot of `generation`.
    func logURL(_ name: String, generation: Int) -> URL { url.appendingPathComponent("\(name).\(generation).log") }

    private var pkiURL: URL { url.appendingPathComponent("pki.pem") }

    private var rootURL: URL { url.appendingPathComponent("root.pem") }

    /// The signing chain kept in `pki.pem`, generated and written the first time. Its root is also
    /// written to `root.pem`, for a local verifier to trust (`SHOPKEEPER_APPLE_ROOT_CERTIFICATES`).
    ///
    /// A chain saved before the certificates carried Apple's key identifiers (``SigningChain/hasKeyIdentifiers``)
    /// is upgraded: its root (and root key) are kept, so a verifier that already trusts `root.pem` goes on trusting
    /// the sandbox, and a new intermediate and leaf with the full extensions are issued under it. Only a root
    /// without a Subject Key Identifier (none was ever written so) would be replaced whole.
    func loadOrCreateSigningChain() throws -> SigningChain {
        var chain: SigningChain
        if let text = try? String(contentsOf: pkiURL, encoding: .utf8) {
            chain = try SigningChain(pemBundle: text)
            if !chain.hasKeyIdentifiers {
                chain = try Self.upgraded(chain)
                try write(Data(try chain.pemBundle().utf8), to: pkiURL)
            }
        } else {
            chain = try SigningChain.generate()
            try write(Data(try chain.pemBundle().utf8), to: pkiURL)
        }
        try write(Data(try chain.root.serializeAsPEM().pemString.utf8), to: rootURL)
        return chain
    }

    /// `chain` with a new intermediate and leaf under its root, valid until the root expires.
    static func upgraded(_ chain: SigningChain) throws -> SigningChain {
        let upgraded = try SigningChain.generate(
            SigningChain.Options(notValidAfter: chain.root.notValidAfter), under: chain.root, rootKey: chain.rootKey)
        return upgraded.hasKeyIdentifiers ? upgraded : try SigningChain.generate()
    }

    /// The RSA key the sandbox signs Pub/Sub push tokens with, kept in `google-push-key.pem` (made the first time),
    /// so the keys it publishes stay the same across restarts.
    func loadOrCreateGooglePushKey() throws -> _RSA.Signing.PrivateKey {
        let keyURL = url.appendingPathComponent("google-push-key.pem")
        if let text = try? String(contentsOf: keyURL, encoding: .utf8) {
            return try _RSA.Signing.PrivateKey(pemRepresentation: text)
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        try write(Data(key.pemRepresentation.utf8), to: keyURL)
        return key
    }

    /// Writes the keys push tokens are signed with to `google-push-jwks.json`, for a local verifier to trust
    /// (`SHOPKEEPER_GOOGLE_PUSH_JWKS`), as `root.pem` is for App Store signatures.
    func writeGooglePushKeySet(_ keySet: GoogleJSONWebKeySet) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try write(try encoder.encode(keySet), to: url.appendingPathComponent("google-push-jwks.json"))
    }

    /// Writes `data` next to `target` and renames it into place, so a reader never sees half a file. `durably`
    /// flushes the file to disk before the rename and the directory after it, so that after a power loss the
    /// target is the old file or the new one, whole.
    func write(_ data: Data, to target: URL, durably: Bool = false) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let temporary = url.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateDirectoryError(path: temporary.path, reason: "cannot be written") }
        var failed = !POSIXFile.writeAll(data, to: fd)
        if durably && fsync(fd) != 0 { failed = true }
        close(fd)
        guard !failed else {
            try? FileManager.default.removeItem(at: temporary)
            throw StateDirectoryError(path: temporary.path, reason: "cannot be written")
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw StateDirectoryError(path: target.path, reason: "cannot be replaced: \(reason)")
        }
        if durably {
            let directory = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                close(directory)
            }
        }
    }
}

/// The state directory cannot be written.
struct StateDirectoryError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "sandbox state file \(path) \(reason) (SHOPKEEPER_SANDBOX_STATE_DIR)" }
}
