import Foundation
import ShopkeeperStores
import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything the sandbox store remembers, as written to `state.json`.
struct SandboxSnapshot: Codable, Sendable, Equatable {
    /// The file format's version.
    var version = 1
    /// The next App Store transaction id (numeric, as Apple's).
    var nextTransactionNumber: Int64 = 2_000_000_000_000_000 + Int64.random(in: 0..<1_000_000) * 1000
    var nextWebOrderLineItemNumber: Int64 = 2_000_000_000_000_000 + Int64.random(in: 0..<1_000_000) * 1000
    var appleTransactions: [AppleTransactionRecord] = []
    var appleKeys: [AppleAPIKeyRecord] = []
    /// Bundle id -> the app-specific shared secret of `verifyReceipt` (optional: older state files lack it).
    var appleSharedSecrets: [String: String]?
    var googleAccounts: [GoogleServiceAccountRecord] = []
    var googleAccessTokens: [GoogleAccessTokenRecord] = []
    var googlePurchases: [GooglePurchaseRecord] = []
    var googleVoided: [GoogleVoidedRecord] = []
    /// Original transaction id -> how the clock moves that subscription (absent in older state files).
    var appleSchedules: [String: AppleRenewalSchedule]?
    /// `apple:<bundle id>` or `google:<package name>` -> the app's subscription settings.
    var appSettings: [String: StoreAppSettings]?
    /// Consumption information received, oldest first.
    var appleConsumption: [AppleConsumptionRecord]?
}

/// The state directory (`SHOPKEEPER_SANDBOX_STATE_DIR`): `pki.pem` (the signing chain, made once), `root.pem`
/// (its root, public) and `state.json`
/// (written through on every change, by writing a temporary file and renaming it over the old one).
struct StateDirectory: Sendable {
    let url: URL

    private var pkiURL: URL { url.appendingPathComponent("pki.pem") }
    private var stateURL: URL { url.appendingPathComponent("state.json") }

    private var rootURL: URL { url.appendingPathComponent("root.pem") }

    /// The signing chain kept in `pki.pem`, generated and written the first time. Its root is also
    /// written to `root.pem`, for a local verifier to trust (`SHOPKEEPER_APPLE_ROOT_CERTIFICATES`).
    func loadOrCreateSigningChain() throws -> SigningChain {
        let chain: SigningChain
        if let text = try? String(contentsOf: pkiURL, encoding: .utf8) {
            chain = try SigningChain(pemBundle: text)
        } else {
            chain = try SigningChain.generate()
            try write(Data(try chain.pemBundle().utf8), to: pkiURL)
        }
        try write(Data(try chain.root.serializeAsPEM().pemString.utf8), to: rootURL)
        return chain
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

    /// The saved state, or `nil` when none was saved yet.
    func loadState() throws -> SandboxSnapshot? {
        guard FileManager.default.fileExists(atPath: stateURL.path) else { return nil }
        return try JSONDecoder().decode(SandboxSnapshot.self, from: Data(contentsOf: stateURL))
    }

    func save(_ snapshot: SandboxSnapshot) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(snapshot), to: stateURL)
    }

    /// Writes `data` next to `target` and renames it into place, so a reader never sees half a file.
    private func write(_ data: Data, to target: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let temporary = url.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw StateDirectoryError(path: temporary.path, reason: "cannot be written")
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw StateDirectoryError(path: target.path, reason: "cannot be replaced: \(reason)")
        }
    }
}

/// The state directory cannot be written.
struct StateDirectoryError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "sandbox state file \(path) \(reason) (SHOPKEEPER_SANDBOX_STATE_DIR)" }
}
