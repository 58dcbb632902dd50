import Foundation
import ShopkeeperCore

/// The console's settings (part of ``GatewaySettings``):
///
/// | variable | default | meaning |
/// | --- | --- | --- |
/// | `SHOPKEEPER_CONSOLE_DIR` | `Console` in the working directory, when it exists | the folder of the console's static files, served under `/console`; it must hold `index.html`. Unset and absent: the console is off (`/console` answers 404), its API and sessions still work |
/// | `SHOPKEEPER_CONSOLE_RELOAD` | `false` | read the folder again on every request (while editing the pages); otherwise it is read once, at start |
/// | `SHOPKEEPER_CONSOLE_SESSION_SECONDS` | `43200` (12 h) | a console session's absolute lifetime |
/// | `SHOPKEEPER_CONSOLE_IDLE_SECONDS` | `1800` (30 min) | a session unused this long ends; each use extends it, up to the absolute lifetime |
/// | `SHOPKEEPER_CONSOLE_PASSWORD_COST` | `15` | scrypt's cost for console users' passwords, as log2 N (r = 8, p = 1; 15 is 32 MiB a hash); raising it rehashes each password at its next sign-in |
/// | `SHOPKEEPER_CONSOLE_LOCKOUT_ATTEMPTS` | `5` | failed sign-ins in a row (wrong password or code) that lock a console user; also the codes tried in a row that lock enrolling a second factor |
/// | `SHOPKEEPER_CONSOLE_LOCKOUT_SECONDS` | `900` (15 min) | how long a locked user cannot sign in (or enroll a second factor) |
/// | `SHOPKEEPER_CONSOLE_INVITATION_SECONDS` | `604800` (7 days) | how long an invitation to the console can be accepted |
/// | `SHOPKEEPER_CONSOLE_SIGN_IN_RATE` | `0.1/10` | sign-in attempts per second / burst for each client address (one every 10 s after a burst of 10), whether they succeed or not; for the whole deployment, each gateway replica enforcing its share (`SHOPKEEPER_GATEWAY_REPLICAS`) |
struct ConsoleSettings: Sendable {
    /// The static files' folder; `nil` when the console's pages are not served.
    var directory: String?
    /// Whether the folder is read again on every request.
    var reload: Bool
    var sessionLifetime: Duration
    var idleTimeout: Duration
    /// Sign-in attempts of one client address.
    var signInLimit: RateLimit
    /// How console users' passwords are hashed.
    var passwordCost: PasswordHasher.Parameters = .standard
    /// Failed sign-ins in a row that lock a user, and for how long.
    var lockoutAttempts = 5
    var lockoutDuration: Duration = .seconds(900)
    var invitationLifetime: Duration = .seconds(604_800)

    /// The folder looked for when `SHOPKEEPER_CONSOLE_DIR` is unset, relative to the working directory (the
    /// repository's root under `scripts/run`).
    static let defaultDirectory = "Console"

    static func read(
        _ environment: EnvironmentReader, currentDirectory: String = FileManager.default.currentDirectoryPath
    )
        throws(ConfigurationError) -> ConsoleSettings
    {
        let lifetime = try environment.int("SHOPKEEPER_CONSOLE_SESSION_SECONDS", default: 43_200, in: 1...2_592_000)
        let idle = try environment.int("SHOPKEEPER_CONSOLE_IDLE_SECONDS", default: 1800, in: 1...2_592_000)
        guard idle <= lifetime else {
            throw ConfigurationError(
                variable: "SHOPKEEPER_CONSOLE_IDLE_SECONDS",
                reason: "cannot exceed SHOPKEEPER_CONSOLE_SESSION_SECONDS (\(lifetime))")
        }
        return ConsoleSettings(
            directory: try directory(environment, currentDirectory: currentDirectory),
            reload: try environment.bool("SHOPKEEPER_CONSOLE_RELOAD", default: false),
            sessionLifetime: .seconds(lifetime),
            idleTimeout: .seconds(idle),
            signInLimit: try GatewaySettings.rateLimit(
                "SHOPKEEPER_CONSOLE_SIGN_IN_RATE", default: RateLimit(perSecond: 0.1, burst: 10), environment),
            passwordCost: PasswordHasher.Parameters(
                logN: try environment.int("SHOPKEEPER_CONSOLE_PASSWORD_COST", default: 15, in: 10...20), r: 8, p: 1),
            lockoutAttempts: try environment.int("SHOPKEEPER_CONSOLE_LOCKOUT_ATTEMPTS", default: 5, in: 1...100),
            lockoutDuration: .seconds(
                try environment.int("SHOPKEEPER_CONSOLE_LOCKOUT_SECONDS", default: 900, in: 1...86_400)),
            invitationLifetime: .seconds(
                try environment.int("SHOPKEEPER_CONSOLE_INVITATION_SECONDS", default: 604_800, in: 60...2_592_000))
        )
    }

    /// `SHOPKEEPER_CONSOLE_DIR` when set (it must be a folder with `index.html`), else ``defaultDirectory`` when it
    /// is one, else `nil`.
    private static func directory(_ environment: EnvironmentReader, currentDirectory: String)
        throws(ConfigurationError) -> String?
    {
        let name = "SHOPKEEPER_CONSOLE_DIR"
        guard let configured = environment.raw(name) else {
            let fallback = URL(fileURLWithPath: currentDirectory).appendingPathComponent(defaultDirectory).path
            return isFile(fallback + "/index.html") ? fallback : nil
        }
        let path = URL(fileURLWithPath: configured, relativeTo: URL(fileURLWithPath: currentDirectory)).path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError(variable: name, reason: "'\(configured)' is not a directory")
        }
        guard isFile(path + "/index.html") else {
            throw ConfigurationError(variable: name, reason: "'\(configured)' has no index.html")
        }
        return path
    }

    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
