import Foundation

/// Where the app's Shopkeeper is and who the app is.
public struct ShopkeeperConfiguration: Sendable {
    /// The gateway's base URL (`https://shop.example.com`).
    public var baseURL: URL
    /// The app's public key (`pk_...`). Never ship a secret key in an app.
    public var apiKey: String
    /// The store this build is sold through.
    public var platform: StorePlatform
    /// This build's app version (`CFBundleShortVersionString`), one to four dot-separated numbers.
    public var appVersion: String
    /// The kind of build; `nil` asks the device's store (development for sandbox and TestFlight builds).
    public var buildKind: BuildKind?
    /// The app's variant (a paid `full` edition), if any.
    public var variant: String?
    /// The locale to pick product texts for (`de-AT`); `nil` uses the device's.
    public var locale: String?
    /// Where the package keeps its state (ids, the purchase queue, downloaded content). One directory per app
    /// and Shopkeeper; the default is `Application Support/Shopkeeper`.
    public var storageDirectory: URL
    /// Where this install's anonymous id and device id are kept, apart from the storage directory so that they
    /// survive a reinstall: the Keychain on Apple platforms (``KeychainIDStore``); elsewhere a ``FileIDStore`` in
    /// the storage directory's `ids` folder unless you pass one in a directory that outlives the app's data.
    public var idStore: any IDStore
    /// How requests are retried.
    public var retryPolicy: RetryPolicy
    /// The customer token (`Shopkeeper-Customer-Token`) for an app user id, for apps whose customer boundary is
    /// `signed`: your own server mints it after logging the user in. `nil` (or a closure answering `nil`) sends
    /// none, as `open` apps need.
    public var customerToken: (@Sendable (_ appUserID: String) async throws -> String?)?
    /// How long one HTTP request may take, in seconds.
    public var requestTimeout: TimeInterval
    /// The keys the app trusts to sign Shopkeeper's answers, by key id: the base64 Ed25519 public keys of
    /// `GET /v1/admin/answer-signing` (two during a rotation). When set, every answer must be signed by one of them
    /// for its own request, or it is refused as ``ShopkeeperError/untrustedAnswer(_:)`` and never used or cached.
    /// Empty (the default) takes answers unsigned.
    public var answerKeys: [String: String]
    /// How far (in seconds) a signed answer's time may be from the device's clock.
    public var answerMaxAge: TimeInterval

    /// A configuration; only the gateway, the public key, the platform and the app version are required.
    public init(
        baseURL: URL, apiKey: String, platform: StorePlatform = .appStore, appVersion: String,
        buildKind: BuildKind? = nil, variant: String? = nil, locale: String? = nil, storageDirectory: URL? = nil,
        idStore: (any IDStore)? = nil, retryPolicy: RetryPolicy = RetryPolicy(), requestTimeout: TimeInterval = 60,
        customerToken: (@Sendable (_ appUserID: String) async throws -> String?)? = nil,
        answerKeys: [String: String] = [:], answerMaxAge: TimeInterval = 300
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.platform = platform
        self.appVersion = appVersion
        self.buildKind = buildKind
        self.variant = variant
        self.locale = locale
        self.storageDirectory = storageDirectory ?? Self.defaultStorageDirectory()
        self.idStore = idStore ?? Self.defaultIDStore(storageDirectory: self.storageDirectory)
        self.retryPolicy = retryPolicy
        self.requestTimeout = requestTimeout
        self.customerToken = customerToken
        self.answerKeys = answerKeys
        self.answerMaxAge = answerMaxAge
    }

    /// The Keychain where there is one; else a file in the storage directory (which a reinstall deletes too).
    public static func defaultIDStore(storageDirectory: URL) -> any IDStore {
        #if canImport(Security)
            KeychainIDStore()
        #else
            FileIDStore(directory: storageDirectory.appendingPathComponent("ids", isDirectory: true))
        #endif
    }

    /// `Application Support/Shopkeeper` of the app (on Linux, `~/.local/share/Shopkeeper`'s equivalent).
    public static func defaultStorageDirectory() -> URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("Shopkeeper", isDirectory: true)
    }
}
