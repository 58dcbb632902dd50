import Foundation

/// The body of `POST /v1/admin/catalog/sync`: read a store's catalog, show how it differs from this app's, and apply
/// what the operator accepts.
package struct CatalogSyncRequest: Codable, Sendable, Equatable {
    /// The store to read: `apple` (App Store Connect) or `google` (Google Play's Android Publisher API).
    package var store: String
    /// Only show the differences; nothing changes.
    package var dryRun: Bool
    /// What to apply: change ids from a dry run's answer (`price:garden.extra:USA`), or whole kinds
    /// (`review_state`, `price`, `new_product`, `deleted_at_store`). Everything else is left as it is.
    package var accept: [String]

    package init(store: String, dryRun: Bool, accept: [String] = []) {
        self.store = store
        self.dryRun = dryRun
        self.accept = accept
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case store, accept
        case dryRun = "dry_run"
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        store = try container.decode(String.self, forKey: .store)
        dryRun = try container.decodeIfPresent(Bool.self, forKey: .dryRun) ?? true
        accept = try container.decodeIfPresent([String].self, forKey: .accept) ?? []
    }
}

/// What a store sells for an app, as the verifier read it from the store (App Store Connect, Google Play), normalized.
package struct StoreCatalog: Codable, Sendable, Equatable {
    /// The catalog's platform the store ids belong to.
    package var platform: StorePlatform
    package var products: [StoreCatalogProduct]
    /// Store product ids the verifier has recorded purchases of: never deleted because a store says so.
    package var purchasedStoreProductIDs: [String]

    package init(platform: StorePlatform, products: [StoreCatalogProduct], purchasedStoreProductIDs: [String]) {
        self.platform = platform
        self.products = products
        self.purchasedStoreProductIDs = purchasedStoreProductIDs
    }

    package enum CodingKeys: String, CodingKey {
        case platform, products
        case purchasedStoreProductIDs = "purchased_store_product_ids"
    }
}

/// One product as the store describes it.
package struct StoreCatalogProduct: Codable, Sendable, Equatable {
    package var storeProductID: String
    package var type: ProductType
    /// The store's reference name (App Store Connect's `name`, Play's `en-US` listing title).
    package var referenceName: String
    /// The store's own word for where the product stands (`APPROVED`, `WAITING_FOR_REVIEW`, ...; Play's `ACTIVE`,
    /// `INACTIVE`, `DRAFT`).
    package var storeState: String
    /// ``storeState`` in the catalog's words.
    package var reviewState: ReviewState
    /// The subscription group's reference name (auto-renewable subscriptions).
    package var subscriptionGroup: String?
    /// The store's period, for subscriptions: Apple's word (`ONE_MONTH`) or Play's ISO 8601 duration (`P1M`).
    package var subscriptionPeriod: String?
    /// The price in each territory where it is sold.
    package var prices: [StorePrice]
    /// Google Play: the base plan whose state, period and prices these are (a subscription may have several).
    package var basePlanID: String?
    /// Google Play: the active offers on that base plan.
    package var offerIDs: [String]?

    package init(
        storeProductID: String, type: ProductType, referenceName: String, storeState: String,
        reviewState: ReviewState, subscriptionGroup: String? = nil, subscriptionPeriod: String? = nil,
        prices: [StorePrice], basePlanID: String? = nil, offerIDs: [String]? = nil
    ) {
        self.storeProductID = storeProductID
        self.type = type
        self.referenceName = referenceName
        self.storeState = storeState
        self.reviewState = reviewState
        self.subscriptionGroup = subscriptionGroup
        self.subscriptionPeriod = subscriptionPeriod
        self.prices = prices
        self.basePlanID = basePlanID
        self.offerIDs = offerIDs
    }

    package enum CodingKeys: String, CodingKey {
        case type, prices
        case storeProductID = "store_product_id"
        case referenceName = "reference_name"
        case storeState = "store_state"
        case reviewState = "review_state"
        case subscriptionGroup = "subscription_group"
        case subscriptionPeriod = "subscription_period"
        case basePlanID = "base_plan_id"
        case offerIDs = "offer_ids"
    }
}

/// A product's price in one territory.
package struct StorePrice: Codable, Sendable, Hashable {
    /// The store's own territory code: ISO 3166-1 alpha-3 for App Store Connect (`USA`, `DEU`), alpha-2 for Google
    /// Play's regions (`US`, `DE`). Prices are kept per platform, each in its store's words.
    package var territory: String
    /// ISO 4217.
    package var currency: String
    /// The customer price as a decimal string (`0.99`), exactly as the store wrote it.
    package var price: String

    package init(territory: String, currency: String, price: String) {
        self.territory = territory
        self.currency = currency
        self.price = price
    }
}

/// The catalog service's internal sync call: the store's catalog (read by the verifier) and the operator's request.
package struct CatalogSyncCommand: Codable, Sendable {
    package var request: CatalogSyncRequest
    package var storeCatalog: StoreCatalog
    /// Who asked: an operator (`POST /v1/admin/catalog/sync`) or the gateway's scheduled sync.
    package var trigger: CatalogSyncTrigger

    package init(request: CatalogSyncRequest, storeCatalog: StoreCatalog, trigger: CatalogSyncTrigger = .manual) {
        self.request = request
        self.storeCatalog = storeCatalog
        self.trigger = trigger
    }

    package enum CodingKeys: String, CodingKey {
        case request, trigger
        case storeCatalog = "store_catalog"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        request = try container.decode(CatalogSyncRequest.self, forKey: .request)
        storeCatalog = try container.decode(StoreCatalog.self, forKey: .storeCatalog)
        // A gateway of the previous release sends no trigger: only operators synced then.
        trigger = try container.decodeIfPresent(CatalogSyncTrigger.self, forKey: .trigger) ?? .manual
    }
}

/// The catalog service's internal read of the last sync (`GET /v1/admin/catalog/sync/last?store=`).
package struct CatalogSyncLastQuery: Codable, Sendable, Equatable {
    /// `apple` or `google`; `nil`: the newest of either.
    package var store: String?

    package init(store: String?) {
        self.store = store
    }
}

/// Who started a catalog sync.
package enum CatalogSyncTrigger: String, Codable, Sendable, CaseIterable {
    /// An operator: `POST /v1/admin/catalog/sync` or `shopkeeper catalog sync`.
    case manual
    /// The gateway's scheduled sync (`SHOPKEEPER_CATALOG_SYNC_INTERVAL_SECONDS`): review states and prices only.
    case scheduled
}

/// The answer of `POST /v1/admin/catalog/sync` and `GET /v1/admin/catalog/sync/last`: every difference, and what
/// became of it.
package struct CatalogSyncResult: Codable, Sendable, Equatable {
    package var store: String
    package var dryRun: Bool
    package var changes: [CatalogSyncChange]
    /// How many changes were applied.
    package var applied: Int
    /// Who started the sync.
    package var trigger: CatalogSyncTrigger
    /// When the catalog compared (and applied).
    package var syncedAt: Date

    package init(
        store: String, dryRun: Bool, changes: [CatalogSyncChange], applied: Int, trigger: CatalogSyncTrigger = .manual,
        syncedAt: Date = Date()
    ) {
        self.store = store
        self.dryRun = dryRun
        self.changes = changes
        self.applied = applied
        self.trigger = trigger
        self.syncedAt = syncedAt
    }

    package enum CodingKeys: String, CodingKey {
        case store, changes, applied, trigger
        case dryRun = "dry_run"
        case syncedAt = "synced_at"
    }
}

/// One field-by-field difference between the store and the catalog.
package struct CatalogSyncChange: Codable, Sendable, Equatable {
    /// Stable for the same difference: `<kind>:<product or store id>[:<territory>]`; what `accept` names.
    package var id: String
    package var kind: CatalogSyncChangeKind
    /// The catalog's product, when one maps to the store product (for a new product: the id it would get).
    package var productID: String
    package var storeProductID: String
    /// The field that differs (`review_state`, `price`), or `nil` for a whole product.
    package var field: String?
    /// The territory of a price.
    package var territory: String?
    /// The catalog's value (`nil`: none).
    package var from: String?
    /// The store's value (`nil`: none).
    package var to: String?
    package var outcome: CatalogSyncOutcome
    /// Why an accepted change was not applied as asked.
    package var detail: String?

    package init(
        id: String, kind: CatalogSyncChangeKind, productID: String, storeProductID: String, field: String? = nil,
        territory: String? = nil, from: String? = nil, to: String? = nil, outcome: CatalogSyncOutcome = .proposed,
        detail: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.productID = productID
        self.storeProductID = storeProductID
        self.field = field
        self.territory = territory
        self.from = from
        self.to = to
        self.outcome = outcome
        self.detail = detail
    }

    package enum CodingKeys: String, CodingKey {
        case id, kind, field, territory, from, to, outcome, detail
        case productID = "product_id"
        case storeProductID = "store_product_id"
    }
}

/// What kind of difference a sync found.
package enum CatalogSyncChangeKind: String, Codable, Sendable, CaseIterable {
    /// The store sells a product the catalog does not map.
    case newProduct = "new_product"
    /// The store's review state, in the catalog's words, differs.
    case reviewState = "review_state"
    /// A territory's price is new, changed, or no longer offered.
    case price
    /// The catalog maps a store product the store no longer has.
    case deletedAtStore = "deleted_at_store"
}

/// What became of a difference.
package enum CatalogSyncOutcome: String, Codable, Sendable, CaseIterable {
    /// Shown only (a dry run, or not accepted).
    case proposed
    /// Applied to the catalog.
    case applied
    /// Accepted, but kept as it is: a product with purchases is never deleted (it is marked `removed` instead).
    case kept
    /// Accepted, but it cannot be applied as it is (see `detail`).
    case refused
}
