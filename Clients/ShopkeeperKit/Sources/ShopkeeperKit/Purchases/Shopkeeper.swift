import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ShopkeeperKit's front door: the catalog, purchases that are never lost, restore, consumables, trials, ids and
/// content, for one app on one device.
///
/// Every store transaction is kept (on disk, in ``pendingPurchases``) from the moment the store reports it until
/// Shopkeeper answers `200`, or a `4xx` that says it will never take it; only then is it finished at the store.
/// Anything else (an outage, a `503`, no network, a crash) leaves it kept and unfinished, and it is sent again:
/// at ``start()``, after each new transaction, on a backoff while started, and on ``retryPendingPurchases()``.
public actor Shopkeeper {
    /// The typed API client underneath.
    public nonisolated let api: ShopkeeperAPI
    /// The store on this device.
    public nonisolated let store: any DeviceStore
    /// The configuration.
    public nonisolated let configuration: ShopkeeperConfiguration

    let stateFile: JSONFile<LocalState>
    /// Where this install's ids are kept apart from the state file.
    public nonisolated let idStore: any IDStore
    var state: LocalState
    var lastCustomerInfo: CustomerInfo?
    var subscribers: [UUID: AsyncStream<CustomerInfo>.Continuation] = [:]
    var inFlight: Set<String> = []
    var appTransactionInFlight = false
    var listener: Task<Void, Never>?
    var retryTask: Task<Void, Never>?
    /// Transactions finished because Shopkeeper refused them for good, oldest first.
    public internal(set) var refusedTransactions: [RefusedTransaction] = []

    /// Opens the package's state in `configuration.storageDirectory` (made on first use) and this install's ids in
    /// `configuration.idStore` (the Keychain on Apple platforms): after a reinstall the ids are the same as before,
    /// and ids that an older version kept only in the state file move to the id store. Call ``start()`` next.
    public init(configuration: ShopkeeperConfiguration, store: any DeviceStore, session: URLSession? = nil)
        throws(ShopkeeperError)
    {
        self.configuration = configuration
        self.store = store
        self.idStore = configuration.idStore
        self.api = ShopkeeperAPI(configuration: configuration, session: session)
        self.stateFile = JSONFile(url: configuration.storageDirectory.appendingPathComponent("state.json"))
        let kept: KeptIDs
        do throws(ShopkeeperError) {
            kept = try idStore.read().map(KeptIDs.kept) ?? .empty
        } catch {
            kept = .unavailable(error)
        }
        let opening = try LocalState.opening(saved: try stateFile.read(), kept: kept, new: InstallIDs.make())
        self.state = opening.state
        // Not kept now (the Keychain failed): the next start finds them in the state file and tries again.
        if let ids = opening.keep { try? idStore.write(ids) }
        if opening.saveState { try stateFile.write(state) }
    }

    // MARK: Who

    /// The current app user id: the anonymous id of this install until ``logIn(_:)``.
    public var appUserID: String { state.appUserID }
    /// This install's anonymous id.
    public var anonymousID: String { state.anonymousID }
    /// This install's device id (trials, device limits, content).
    public var deviceID: String { state.deviceID }
    /// Purchases waiting for Shopkeeper.
    public var pendingPurchases: [PendingPurchase] { state.pendingPurchases }
    /// Spends waiting for Shopkeeper's answer.
    public var pendingConsumes: [PendingConsume] { state.pendingConsumes }
    /// The app transaction this install sent (``start()`` sends it once per install, ``restore()`` again); `nil`
    /// until Shopkeeper answered one.
    public var sentAppTransaction: SentAppTransaction? { state.appTransaction }

    // MARK: Lifecycle

    /// Sends every unfinished transaction (and unanswered spend) and keeps listening to the store's transaction
    /// updates; sends the store's app transaction (StoreKit's `AppTransaction`: which edition of the app the store
    /// account got, from which version) once per install. Call it once at launch; calling it again only sends what
    /// is waiting.
    public func start() async {
        if listener == nil {
            let updates = store.transactionUpdates()
            listener = Task { [weak self] in
                for await transaction in updates { await self?.receive(transaction) }
            }
        }
        await collectUnfinished()
        _ = await drainPendingPurchases(force: true)
        await retryPendingConsumes()
        await sendAppTransactionOnce()
    }

    /// Stops listening and retrying (what is kept stays on disk for the next start).
    public func stop() {
        listener?.cancel()
        listener = nil
        retryTask?.cancel()
        retryTask = nil
    }

    // MARK: Customer info

    /// What the customer owns now (revalidated by `ETag`); also sent to ``customerInfoUpdates()``.
    public func customerInfo() async throws(ShopkeeperError) -> CustomerInfo {
        let info = try await api.customerInfo(appUserID: state.appUserID)
        publish(info)
        return info
    }

    /// Every change of the current customer's info, as this client learns it (purchases, restores, spends,
    /// reads); starts with the last known info, if any.
    public func customerInfoUpdates() -> AsyncStream<CustomerInfo> {
        let (stream, continuation) = AsyncStream.makeStream(of: CustomerInfo.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers[id] = continuation
        if let lastCustomerInfo { continuation.yield(lastCustomerInfo) }
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    func publish(_ info: CustomerInfo) {
        guard info.appUserID == state.appUserID || state.knownUserIDs.contains(info.appUserID) else { return }
        guard info != lastCustomerInfo else { return }
        lastCustomerInfo = info
        for continuation in subscribers.values { continuation.yield(info) }
    }

    // MARK: Catalog

    /// The shop as this build sees it: platform, app version, build kind (development for sandbox and TestFlight
    /// builds, from the store), variant, locale and the store's storefront (for the synced price hints) filled in.
    /// Cached by `ETag`.
    public func catalog() async throws(ShopkeeperError) -> CatalogView {
        try await api.catalog(
            platform: configuration.platform, appVersion: configuration.appVersion, build: await buildKind(),
            variant: configuration.variant, locale: configuration.locale ?? Self.deviceLocale(),
            storefront: await store.currentStorefront())
    }

    /// The build kind the catalog and the offerings are asked for: the configured one, else the store's.
    func buildKind() async -> BuildKind {
        if let configured = configuration.buildKind { return configured }
        return await store.buildKind()
    }

    /// The device's locale as the catalog's `locale` parameter takes it, if it is one.
    static func deviceLocale() -> String? {
        let identifier = Locale.current.identifier.replacingOccurrences(of: "_", with: "-")
        let parts = identifier.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isLetter),
            parts.dropFirst().allSatisfy({ (2...8).contains($0.count) && $0.allSatisfy { $0.isLetter || $0.isNumber } })
        else { return nil }
        return identifier
    }

    // MARK: Trials and ids

    /// Starts the app's free trial on this device (once per customer and device); answers the one running when
    /// there is one.
    public func startTrial(productID: String? = nil) async throws(ShopkeeperError) -> TrialInfo {
        let trial = try await api.startTrial(appUserID: state.appUserID, deviceID: state.deviceID, productID: productID)
        _ = try? await customerInfo()
        return trial
    }

    /// Claims a product the catalog marks `free` (its `availability`): the customer owns it from then on, on every
    /// device (`productGrants`, and its entitlements). Claiming again changes nothing.
    public func claim(productID: String) async throws(ShopkeeperError) -> ProductClaimResult {
        let result = try await api.claimFreeProduct(appUserID: state.appUserID, productID: productID)
        publish(result.customer)
        return result
    }

    /// Whether an introductory offer or free trial of the product may be offered to this customer on this device.
    public func eligibility(productID: String) async throws(ShopkeeperError) -> EligibilityInfo {
        try await api.eligibility(appUserID: state.appUserID, productID: productID, deviceID: state.deviceID)
    }

    /// An App Store offer of the product signed for this customer by the server, to pass to StoreKit: a promotional
    /// offer (`offerID`, for customers who subscribed in its group before; buy with its `appAccountToken`) or an
    /// introductory offer eligibility (the server's verdict across both stores). Throws `offer_not_eligible` when the
    /// server would not sign a promotional offer for this customer.
    public func offerSignature(productID: String, offer: OfferKind, offerID: String? = nil)
        async throws(ShopkeeperError) -> OfferSignature
    {
        try await api.offerSignature(
            appUserID: state.appUserID, productID: productID, offer: offer, offerID: offerID, deviceID: state.deviceID)
    }

    /// Switches to a logged-in user. From the anonymous id, the login id is linked to it first, so what was bought
    /// anonymously belongs to the user (where the public key may not link, as under the `signed` customer
    /// boundary, your server links them with the secret key). Answers the user's info.
    public func logIn(_ newAppUserID: String) async throws(ShopkeeperError) -> CustomerInfo {
        let previous = state.appUserID
        if newAppUserID != previous, previous == state.anonymousID {
            do throws(ShopkeeperError) {
                _ = try await api.linkAlias(appUserID: previous, alias: newAppUserID)
            } catch {
                let theServersJob: Set<String> = [
                    "secret_key_required", "merge_needs_secret_key", "already_owned_by_other_customer",
                ]
                guard let code = error.code, theServersJob.contains(code) else { throw error }
            }
        }
        try use(appUserID: newAppUserID)
        return try await customerInfo()
    }

    /// Back to a new anonymous id (what the logged-in user owns stays theirs). The id store keeps it first: were a
    /// reinstall to find the old one, it would be the logged-in user's again.
    public func logOut() throws(ShopkeeperError) {
        let anonymous = InstallIDs.make().anonymousID
        try idStore.write(InstallIDs(anonymousID: anonymous, deviceID: state.deviceID))
        state.anonymousID = anonymous
        try use(appUserID: anonymous)
    }

    private func use(appUserID: String) throws(ShopkeeperError) {
        state.appUserID = appUserID
        if !state.knownUserIDs.contains(appUserID) { state.knownUserIDs.append(appUserID) }
        lastCustomerInfo = nil
        try save()
    }

    func save() throws(ShopkeeperError) { try stateFile.write(state) }
}

/// A transaction finished because Shopkeeper will never take it.
public struct RefusedTransaction: Hashable, Sendable {
    /// The store transaction.
    public var transaction: DeviceTransaction
    /// Why (`invalid_signature`, `app_account_token_mismatch`, ...).
    public var code: String
}
