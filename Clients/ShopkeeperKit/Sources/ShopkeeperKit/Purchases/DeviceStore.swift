import Foundation

/// The store on this device: StoreKit 2 on Apple platforms (``StoreKitDeviceStore``), Shopkeeper's sandbox store
/// elsewhere (``SandboxDeviceStore``). It buys, lists what is unfinished and what the account owns, and finishes a
/// transaction once Shopkeeper has it. Like StoreKit's, its unfinished transactions survive app restarts.
public protocol DeviceStore: Sendable {
    /// The store the device buys from.
    var platform: StorePlatform { get }

    /// The kind of build, as the store sees it: `development` for sandbox and TestFlight purchases.
    func buildKind() async -> BuildKind

    /// Buys a product. `nil` when the user cancelled or the purchase waits for approval (it arrives through
    /// ``transactionUpdates()`` later).
    func purchase(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction?

    /// Every transaction not finished yet (`Transaction.unfinished`).
    func unfinishedTransactions() async throws(ShopkeeperError) -> [DeviceTransaction]

    /// The proofs of everything the store account owns now (`Transaction.currentEntitlements`), for restore.
    func currentEntitlements() async throws(ShopkeeperError) -> [DeviceTransaction]

    /// Tells the store the transaction was delivered; it is not offered again.
    func finish(_ transaction: DeviceTransaction) async throws(ShopkeeperError)

    /// Transactions that arrive outside ``purchase(_:)`` (renewals, Ask to Buy approvals, other devices).
    func transactionUpdates() -> AsyncStream<DeviceTransaction>

    /// The store's products of these ids as the customer's storefront shows them (`Product.products(for:)`): the
    /// localized price, the subscription period and introductory offer. Ids the store does not sell here are left
    /// out. The default answers none (a store that does not say).
    func products(for storeProductIDs: [String]) async throws(ShopkeeperError) -> [StoreProduct]

    /// Whether this device may pay (`AppStore.canMakePayments`: not under Screen Time's purchase restrictions). The
    /// default answers `true`.
    func canMakePayments() async -> Bool

    /// The customer's storefront as the store names it (the App Store's alpha-3 `USA`, `Storefront.current`), for
    /// the catalog's synced price hint; `nil` when the store does not say (the default).
    func currentStorefront() async -> String?

    /// StoreKit's `AppTransaction` for this app, as its JWS (`jwsRepresentation`): the signed proof of which edition
    /// of the app the store account got, and from which version. `nil` where the store has none (before iOS 16,
    /// Google Play); the default answers `nil`.
    func appTransaction() async throws(ShopkeeperError) -> String?
}

extension DeviceStore {
    /// None: this store says nothing of its products.
    public func products(for storeProductIDs: [String]) async throws(ShopkeeperError) -> [StoreProduct] { [] }
    /// Payments are allowed.
    public func canMakePayments() async -> Bool { true }
    /// The store does not say.
    public func currentStorefront() async -> String? { nil }
    /// No app transaction.
    public func appTransaction() async throws(ShopkeeperError) -> String? { nil }
}

/// What to buy.
public struct DevicePurchaseRequest: Hashable, Sendable {
    /// The product's id at the store.
    public var storeProductID: String
    /// What kind of product it is (the catalog says).
    public var productType: ProductType
    /// The subscription period (ISO 8601), for stores that need it (the sandbox).
    public var period: String?
    /// The token Shopkeeper expects: ``AppAccountToken/uuid(forAppUserID:)`` of the buyer.
    public var appAccountToken: UUID
    /// Units (consumables).
    public var quantity: Int
    /// A promotional offer the server signed for this buyer (``Shopkeeper/offerSignature(productID:offer:offerID:)``),
    /// to buy the subscription with: StoreKit's `.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`.
    public var promotionalOffer: OfferSignature?

    /// A request.
    public init(
        storeProductID: String, productType: ProductType, period: String? = nil, appAccountToken: UUID,
        quantity: Int = 1, promotionalOffer: OfferSignature? = nil
    ) {
        self.storeProductID = storeProductID
        self.productType = productType
        self.period = period
        self.appAccountToken = appAccountToken
        self.quantity = quantity
        self.promotionalOffer = promotionalOffer
    }
}

/// A transaction of the device's store and its proof.
public struct DeviceTransaction: Codable, Hashable, Sendable, Identifiable {
    /// The store's transaction id.
    public var id: String
    /// The product's id at the store.
    public var storeProductID: String
    /// What to send Shopkeeper.
    public var proof: PurchaseProof
    /// The `appAccountToken` it was bought with, if any.
    public var appAccountToken: UUID?
    /// The kind of product, when known.
    public var productType: ProductType?

    /// A transaction.
    public init(
        id: String, storeProductID: String, proof: PurchaseProof, appAccountToken: UUID?, productType: ProductType?
    ) {
        self.id = id
        self.storeProductID = storeProductID
        self.proof = proof
        self.appAccountToken = appAccountToken
        self.productType = productType
    }
}
