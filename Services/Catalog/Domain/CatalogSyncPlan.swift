import Foundation
import ShopkeeperModels

/// The field-by-field difference between a store's catalog and the app's, and which of its changes the operator
/// accepted. Pure: the repository reads the inputs and applies ``CatalogSyncWrite``s.
struct CatalogSyncPlan: Sendable {
    /// Every difference, in a stable order (kind, product, territory).
    var changes: [CatalogSyncChange]
    /// What applying the accepted changes writes.
    var writes: [CatalogSyncWrite]

    /// Compares `store` with `products` (and their synced `prices`, by product id); `accept` names change ids or
    /// whole kinds; `apply` false (a dry run) proposes everything and writes nothing.
    init(
        store: StoreCatalog, products: [Product], prices: [String: [StorePrice]], accept: [String], apply: Bool
    ) {
        let accepted = Set(accept)
        let platform = store.platform
        let purchased = Set(store.purchasedStoreProductIDs)
        var byStoreID: [String: Product] = [:]
        for product in products {
            if let id = product.storeProductIDs[platform] { byStoreID[id] = product }
        }
        let takenProductIDs = Set(products.map(\.productID))
        var changes: [CatalogSyncChange] = []
        var writes: [CatalogSyncWrite] = []
        func decide(_ change: CatalogSyncChange, _ write: CatalogSyncWrite?) {
            var change = change
            if apply, accepted.contains(change.id) || accepted.contains(change.kind.rawValue) {
                switch write {
                case .some(.refuse(let detail)):
                    change.outcome = .refused
                    change.detail = detail
                case .some(.markRemoved):
                    change.outcome = .kept
                    change.detail = "the product has purchases: marked removed (hidden from every build), not deleted"
                    if let write { writes.append(write) }
                case .some(let write):
                    change.outcome = .applied
                    writes.append(write)
                case .none:
                    break
                }
            }
            changes.append(change)
        }

        for item in store.products {
            guard let product = byStoreID[item.storeProductID] else {
                let id = "new_product:\(item.storeProductID)"
                let draft = Self.newProduct(item, platform: platform)
                let write: CatalogSyncWrite =
                    if takenProductIDs.contains(item.storeProductID) {
                        .refuse("a product '\(item.storeProductID)' already exists; map it to this store id by hand")
                    } else if let problem = Self.problem(of: draft) {
                        .refuse(problem)
                    } else {
                        .create(draft, prices: item.prices)
                    }
                decide(
                    CatalogSyncChange(
                        id: id, kind: .newProduct, productID: item.storeProductID, storeProductID: item.storeProductID,
                        to: Self.summary(item)),
                    write)
                continue
            }
            if product.reviewState != item.reviewState {
                decide(
                    CatalogSyncChange(
                        id: "review_state:\(product.productID)", kind: .reviewState, productID: product.productID,
                        storeProductID: item.storeProductID, field: "review_state", from: product.reviewState.rawValue,
                        to: item.reviewState.rawValue, detail: "\(Self.storeName(platform)): \(item.storeState)"),
                    .setReviewState(productID: product.productID, item.reviewState))
            }
            let kept = Dictionary(
                (prices[product.productID] ?? []).map { ($0.territory, $0) }, uniquingKeysWith: { a, _ in a })
            let offered = Dictionary(item.prices.map { ($0.territory, $0) }, uniquingKeysWith: { a, _ in a })
            for territory in Set(kept.keys).union(offered.keys).sorted() {
                let old = kept[territory]
                let new = offered[territory]
                guard !Self.samePrice(old, new) else { continue }
                decide(
                    CatalogSyncChange(
                        id: "price:\(product.productID):\(territory)", kind: .price, productID: product.productID,
                        storeProductID: item.storeProductID, field: "price", territory: territory,
                        from: old.map { "\($0.price) \($0.currency)" }, to: new.map { "\($0.price) \($0.currency)" }),
                    new.map { .setPrice(productID: product.productID, $0) }
                        ?? .removePrice(productID: product.productID, territory: territory))
            }
        }
        let listed = Set(store.products.map(\.storeProductID))
        for (storeID, product) in byStoreID.sorted(by: { $0.key < $1.key }) where !listed.contains(storeID) {
            let hasPurchases = purchased.contains(storeID)
            guard !(hasPurchases && product.reviewState == .removed) else { continue }
            decide(
                CatalogSyncChange(
                    id: "deleted_at_store:\(product.productID)", kind: .deletedAtStore, productID: product.productID,
                    storeProductID: storeID, from: product.reviewState.rawValue,
                    detail: hasPurchases ? "has purchases: never deleted" : nil),
                hasPurchases ? .markRemoved(productID: product.productID) : .delete(productID: product.productID))
        }
        self.changes = changes
        self.writes = writes
    }

    /// Whether two prices are the same amount in the same currency (`1.5` and `1.50` are).
    static func samePrice(_ a: StorePrice?, _ b: StorePrice?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.currency == b.currency && Decimal(string: a.price) == Decimal(string: b.price)
    }

    /// A new store product in a few words: type, store state, base plan (Play), number of territories.
    static func summary(_ item: StoreCatalogProduct) -> String {
        let plan = item.basePlanID.map { ", base plan \($0)" } ?? ""
        return "\(item.type.rawValue), \(item.storeState)\(plan), \(item.prices.count) territories"
    }

    /// The store a platform's catalog comes from, as the answers name it.
    static func storeName(_ platform: StorePlatform) -> String {
        switch platform {
        case .appStore: "App Store Connect"
        case .playStore: "Google Play"
        case .stripe: "Stripe"
        }
    }

    /// The product a store product becomes: the store's id as the product id, its reference name as the English
    /// name; a consumable credits one unit, a subscription's duration is its period (Apple's word, or Play's ISO 8601
    /// duration as it is).
    static func newProduct(_ item: StoreCatalogProduct, platform: StorePlatform) -> Product {
        Product(
            productID: item.storeProductID, type: item.type, storeProductIDs: [platform: item.storeProductID],
            reviewState: item.reviewState, clearedForSale: true,
            consumableQuantity: item.type == .consumable ? 1 : nil,
            duration: item.subscriptionPeriod.flatMap { periods[$0] ?? $0 }.flatMap { ISODuration($0) },
            localizations: ["en": ProductLocalization(name: item.referenceName)], group: item.subscriptionGroup)
    }

    /// Apple's subscription period words as ISO 8601 durations.
    static let periods = [
        "ONE_WEEK": "P1W", "ONE_MONTH": "P1M", "TWO_MONTHS": "P2M", "THREE_MONTHS": "P3M", "SIX_MONTHS": "P6M",
        "ONE_YEAR": "P1Y",
    ]

    /// Why a new product cannot be created as the store describes it, if it cannot.
    static func problem(of product: Product) -> String? {
        let problems = ProductValidator.problems(of: product)
        guard let first = problems.first else { return nil }
        return "cannot be created from the store's data (\(first.pointer) \(first.detail)); add it by hand"
    }
}

/// One write of an applied sync.
enum CatalogSyncWrite: Sendable, Equatable {
    case create(Product, prices: [StorePrice])
    case setReviewState(productID: String, ReviewState)
    case setPrice(productID: String, StorePrice)
    case removePrice(productID: String, territory: String)
    case delete(productID: String)
    /// A product with purchases the store no longer has: hidden from every build, never deleted.
    case markRemoved(productID: String)
    /// Not written: the reason.
    case refuse(String)
}
