import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A device that buys at Shopkeeper's sandbox store (`shopkeeper-sandbox-store`) over HTTP: for Linux, tests and
/// demos. It keeps, like StoreKit, the transactions not finished yet in a file of the device (``deviceDirectory``),
/// and the store account's purchases in a file of the account (``accountDirectory``): two devices of one user
/// share the account directory, so a new device can restore. Its products' prices are the sandbox store's for
/// ``storefront`` (`PUT /sandbox/apple/products` sets them), and it signs an app transaction for the account
/// (``appEdition``), as StoreKit's `AppTransaction` would.
public actor SandboxDeviceStore: DeviceStore {
    /// The sandbox store's URL (`SHOPKEEPER_SANDBOX_URL`).
    public nonisolated let sandboxURL: URL
    /// The app's bundle id (App Store) or package name (Google Play).
    public nonisolated let bundleID: String
    /// Which store the sandbox plays.
    public nonisolated let platform: StorePlatform
    /// This device's own files.
    public nonisolated let deviceDirectory: URL
    /// The store account's files (shared by the account's devices).
    public nonisolated let accountDirectory: URL
    /// The App Store storefront the account buys in (ISO 3166-1 alpha-3: `USA`, `DEU`): its prices are shown and
    /// charged.
    public nonisolated let storefront: String
    /// The edition of the app the account got, which its app transaction proves; `nil` for none (as before iOS 16).
    public nonisolated let appEdition: SandboxAppEdition?
    /// Whether the device may pay (``canMakePayments()``); set it to `false` to play Screen Time's restrictions.
    public var paymentsAllowed: Bool

    private let exchange: HTTPExchange
    private let unfinished: JSONFile<[DeviceTransaction]>
    private let owned: JSONFile<[DeviceTransaction]>
    private let account: JSONFile<SandboxAccount>
    private nonisolated let updates: AsyncStream<DeviceTransaction>
    private nonisolated let updatesContinuation: AsyncStream<DeviceTransaction>.Continuation

    /// A sandbox device. `accountDirectory` defaults to `deviceDirectory` (one device per account).
    public init(
        sandboxURL: URL, bundleID: String, platform: StorePlatform = .appStore, deviceDirectory: URL,
        accountDirectory: URL? = nil, storefront: String = "USA", appEdition: SandboxAppEdition? = SandboxAppEdition(),
        canMakePayments: Bool = true, session: URLSession = URLSession(configuration: .ephemeral)
    ) {
        self.sandboxURL = sandboxURL
        self.bundleID = bundleID
        self.platform = platform
        self.deviceDirectory = deviceDirectory
        self.accountDirectory = accountDirectory ?? deviceDirectory
        self.storefront = storefront
        self.appEdition = appEdition
        self.paymentsAllowed = canMakePayments
        self.exchange = HTTPExchange(session: session)
        self.unfinished = JSONFile(url: deviceDirectory.appendingPathComponent("sandbox-unfinished.json"))
        self.owned = JSONFile(url: (accountDirectory ?? deviceDirectory).appendingPathComponent("sandbox-account.json"))
        self.account = JSONFile(
            url: (accountDirectory ?? deviceDirectory).appendingPathComponent("sandbox-apple-id.json"))
        (self.updates, self.updatesContinuation) = AsyncStream.makeStream(of: DeviceTransaction.self)
    }

    /// Sandbox purchases are test purchases: the catalog shows development builds' products.
    public nonisolated func buildKind() async -> BuildKind { .development }

    /// Buys at the sandbox store; the transaction is kept as unfinished before it is returned.
    public func purchase(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction? {
        let transaction = try await buy(request)
        try unfinished.write((try unfinished.read() ?? []) + [transaction])
        try owned.write((try owned.read() ?? []) + [transaction])
        return transaction
    }

    /// What is not finished yet.
    public func unfinishedTransactions() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try unfinished.read() ?? []
    }

    /// The account's purchases that may still be in force: everything but consumables (Shopkeeper decides what is
    /// active; a consumable is delivered once, by its purchase).
    public func currentEntitlements() async throws(ShopkeeperError) -> [DeviceTransaction] {
        try (owned.read() ?? []).filter { $0.productType != .consumable }
    }

    /// Removes the transaction from the unfinished ones.
    public func finish(_ transaction: DeviceTransaction) async throws(ShopkeeperError) {
        try unfinished.write((try unfinished.read() ?? []).filter { $0.id != transaction.id })
    }

    /// Transactions that arrive by themselves: see ``deliverExternally(_:)``. One listener (the ``Shopkeeper``).
    public nonisolated func transactionUpdates() -> AsyncStream<DeviceTransaction> { updates }

    /// The sandbox store's App Store products in ``storefront`` (`GET /sandbox/apple/products`), as StoreKit's
    /// `Product.products(for:)` answers them; none for Google Play.
    /// The account's App Store storefront (the sandbox's Play purchases say no region).
    public func currentStorefront() async -> String? { platform == .appStore ? storefront : nil }

    public func products(for storeProductIDs: [String]) async throws(ShopkeeperError) -> [StoreProduct] {
        guard platform != .playStore else { return [] }
        var found: [StoreProduct] = []
        var start = 0
        while start < storeProductIDs.count {
            let ids = storeProductIDs[start..<min(start + 100, storeProductIDs.count)]
            start += 100
            let data = try await get(
                "/sandbox/apple/products",
                query: [
                    URLQueryItem(name: "ids", value: ids.joined(separator: ",")),
                    URLQueryItem(name: "storefront", value: storefront),
                ])
            let list: SandboxProductList
            do { list = try JSONDecoder().decode(SandboxProductList.self, from: data) } catch {
                throw .deviceStore("the sandbox store's products do not decode: \(error)")
            }
            found += list.products.map(\.storeProduct)
        }
        return found
    }

    /// ``paymentsAllowed``.
    public func canMakePayments() async -> Bool { paymentsAllowed }

    /// Allows or forbids payments from now on.
    public func setCanMakePayments(_ allowed: Bool) { paymentsAllowed = allowed }

    /// The account's app transaction for ``appEdition`` (`POST /sandbox/apple/app-transactions`): the same for every
    /// device of the account, as Apple's is for an Apple ID. `nil` without an edition, and for Google Play.
    public func appTransaction() async throws(ShopkeeperError) -> String? {
        guard platform != .playStore, let appEdition else { return nil }
        var body: [String: Any] = [
            "bundle_id": appEdition.bundleID ?? bundleID,
            "app_account_token": try accountToken().uuidString.lowercased(),
            "environment": "Sandbox",
        ]
        if let version = appEdition.originalApplicationVersion { body["original_application_version"] = version }
        if let version = appEdition.applicationVersion { body["application_version"] = version }
        let answer = try await post("/sandbox/apple/app-transactions", body)
        guard let jws = answer["signed_app_transaction"] as? String else {
            throw .deviceStore("the sandbox store's answer has no signed app transaction")
        }
        return jws
    }

    /// The store account's identity at the sandbox store (what an Apple ID is to the App Store), made once.
    private func accountToken() throws(ShopkeeperError) -> UUID {
        if let kept = try account.read() { return kept.token }
        let made = SandboxAccount(token: UUID())
        try account.write(made)
        return made.token
    }

    /// Buys at the sandbox store as if on another device or by Ask to Buy: the transaction is unfinished here and
    /// arrives through ``transactionUpdates()``, not as a purchase's answer.
    public func deliverExternally(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction {
        guard let transaction = try await purchase(request) else { throw .deviceStore("no transaction") }
        updatesContinuation.yield(transaction)
        return transaction
    }

    // MARK: The sandbox store's control API

    private func buy(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction {
        switch platform {
        case .playStore:
            let kind: PlayPurchaseKind = request.productType == .autoRenewable ? .subscription : .product
            var body: [String: Any] = [
                "package_name": bundleID, "product_id": request.storeProductID, "type": kind.rawValue,
                "quantity": request.quantity, "obfuscated_account_id": request.appAccountToken.uuidString.lowercased(),
            ]
            if kind == .subscription { body["period"] = request.period ?? "P1M" }
            let answer = try await post("/sandbox/google/purchases", body)
            guard let token = answer["purchase_token"] as? String, let order = answer["order_id"] as? String else {
                throw .deviceStore("the sandbox store's answer has no purchase token")
            }
            return DeviceTransaction(
                id: order, storeProductID: request.storeProductID,
                proof: .playPurchase(token: token, productID: request.storeProductID, kind: kind),
                appAccountToken: request.appAccountToken, productType: request.productType)
        default:
            var body: [String: Any] = [
                "bundle_id": bundleID, "product_id": request.storeProductID,
                "type": SandboxDeviceStore.appleType(of: request.productType), "quantity": request.quantity,
                "environment": "Sandbox", "app_account_token": request.appAccountToken.uuidString.lowercased(),
                "storefront": storefront,
            ]
            if request.productType == .autoRenewable { body["period"] = request.period ?? "P1M" }
            if let offer = request.promotionalOffer, let offerID = offer.offerID, let classic = offer.signature {
                // As StoreKit passes it on: the App Store checks the signature and gives the offer (type 2).
                body["promotional_offer"] = [
                    "offer_id": offerID, "key_id": classic.keyID, "nonce": classic.nonce.uuidString.lowercased(),
                    "timestamp": classic.timestamp, "signature": classic.signature,
                ]
                body["offer_type"] = 2
                body["offer_identifier"] = offerID
            }
            let answer = try await post("/sandbox/apple/transactions", body)
            guard let id = answer["transaction_id"] as? String, let jws = answer["signed_transaction"] as? String else {
                throw .deviceStore("the sandbox store's answer has no signed transaction")
            }
            return DeviceTransaction(
                id: id, storeProductID: request.storeProductID, proof: .signedTransaction(jws),
                appAccountToken: request.appAccountToken, productType: request.productType)
        }
    }

    /// Apple's product type names, as the sandbox store takes them.
    static func appleType(of type: ProductType) -> String {
        switch type {
        case .consumable: "Consumable"
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        default: "Non-Consumable"
        }
    }

    private func url(_ path: String, query: [URLQueryItem] = []) throws(ShopkeeperError) -> URL {
        var base = sandboxURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + path) else { throw .deviceStore("bad sandbox URL \(base)") }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .deviceStore("bad sandbox URL \(base)") }
        return url
    }

    private func get(_ path: String, query: [URLQueryItem]) async throws(ShopkeeperError) -> Data {
        let answer = try await exchange.send(URLRequest(url: try url(path, query: query)))
        guard (200...299).contains(answer.status) else {
            throw .deviceStore(
                "the sandbox store answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))"
            )
        }
        return answer.body
    }

    private func post(_ path: String, _ body: [String: Any]) async throws(ShopkeeperError) -> [String: Any] {
        var request = URLRequest(url: try url(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do { request.httpBody = try JSONSerialization.data(withJSONObject: body) } catch {
            throw .deviceStore("\(error)")
        }
        let answer = try await exchange.send(request)
        guard (200...299).contains(answer.status),
            let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        else {
            throw .deviceStore(
                "the sandbox store answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))"
            )
        }
        return object
    }
}

/// The edition of the app a sandbox store account got: what its app transaction proves.
public struct SandboxAppEdition: Hashable, Sendable {
    /// The bundle id it is signed for: `nil` for the device store's own; a variant's (`com.example.garden.full`, in
    /// the app's `variant_bundle_ids`) for a paid edition sold as an app of its own.
    public var bundleID: String?
    /// The version (`CFBundleVersion`) the account first got the app at; the sandbox store keeps the first one it
    /// was told for the account, and takes `1.0` when none is given. Products `grandfathered_below_version` above it
    /// are the account's.
    public var originalApplicationVersion: String?
    /// The version the account has now (default: the original one).
    public var applicationVersion: String?

    /// An edition.
    public init(bundleID: String? = nil, originalApplicationVersion: String? = nil, applicationVersion: String? = nil) {
        self.bundleID = bundleID
        self.originalApplicationVersion = originalApplicationVersion
        self.applicationVersion = applicationVersion
    }
}

/// `sandbox-apple-id.json`: the store account's identity at the sandbox store.
struct SandboxAccount: Codable, Sendable {
    var token: UUID
}

/// The answer of `GET /sandbox/apple/products`.
struct SandboxProductList: Decodable, Sendable {
    var products: [SandboxStorefrontProduct]
}

/// One product of it: StoreKit's `Product` in one storefront.
struct SandboxStorefrontProduct: Decodable, Sendable {
    var productID: String
    var displayName: String
    var description: String?
    var storefront: String
    var currency: String
    /// Milliunits.
    var price: Int64
    var displayPrice: String
    var subscriptionPeriod: String?
    var introductoryOffer: Offer?

    struct Offer: Decodable, Sendable {
        var type: String
        var period: String
        var price: Int64?
    }

    enum CodingKeys: String, CodingKey {
        case description, storefront, currency, price
        case productID = "product_id"
        case displayName = "display_name"
        case displayPrice = "display_price"
        case subscriptionPeriod = "subscription_period"
        case introductoryOffer = "introductory_offer"
    }

    /// As the kit shows store products.
    var storeProduct: StoreProduct {
        StoreProduct(
            id: productID, displayName: displayName, description: description ?? "", displayPrice: displayPrice,
            price: Decimal(price) / 1000, currencyCode: currency, storefront: storefront,
            subscriptionPeriod: subscriptionPeriod,
            introductoryOffer: introductoryOffer.flatMap { offer in
                IntroductoryOffer.PaymentMode(appStoreServerName: offer.type).map {
                    IntroductoryOffer(
                        paymentMode: $0, period: offer.period, price: Decimal(offer.price ?? 0) / 1000)
                }
            })
    }
}
