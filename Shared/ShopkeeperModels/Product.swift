/// One product of an app's catalog, as the developer writes it (admin API, catalog import and export).
package struct Product: Codable, Hashable, Sendable {
    /// The developer's id, unique within the app: letters, digits, `.`, `_`, `-`; at most 100 characters.
    package var productID: String
    package var type: ProductType
    /// The store's product id on each platform it is sold on.
    package var storeProductIDs: [StorePlatform: String]
    package var reviewState: ReviewState
    /// The developer's own switch: an approved product is sold only while this is on.
    package var clearedForSale: Bool
    /// Delivered without any store; the server checks this flag, never the client's word.
    package var free: Bool
    /// App variants (such as a paid "full" edition) that already include this product.
    package var includedInVariants: [String]
    /// Customers who first got the app at a version below this one own the product (a paid app that became free
    /// keeps what its buyers paid for); proven by their app transaction's `originalApplicationVersion`.
    package var grandfatheredBelowVersion: AppVersion?
    package var minAppVersion: AppVersion?
    package var belowMinVersion: BelowMinVersionBehavior
    /// Entitlement ids a purchase unlocks.
    package var entitlements: [String]
    /// Units credited per purchase (consumables only).
    package var consumableQuantity: Int?
    /// Length of one period (non-renewing: required; auto-renewable: informative).
    package var duration: ISODuration?
    /// Length of the free trial, when the product has one.
    package var trialDuration: ISODuration?
    /// The locale used when nothing closer to the caller's exists; must be a key of ``localizations``.
    package var defaultLocale: String
    package var localizations: [String: ProductLocalization]
    /// Lower comes first; ties are ordered by product id.
    package var sortOrder: Int
    /// Subscription group or shelf the product belongs to.
    package var group: String?

    package init(
        productID: String,
        type: ProductType,
        storeProductIDs: [StorePlatform: String] = [:],
        reviewState: ReviewState = .approved,
        clearedForSale: Bool = true,
        free: Bool = false,
        includedInVariants: [String] = [],
        grandfatheredBelowVersion: AppVersion? = nil,
        minAppVersion: AppVersion? = nil,
        belowMinVersion: BelowMinVersionBehavior = .hide,
        entitlements: [String] = [],
        consumableQuantity: Int? = nil,
        duration: ISODuration? = nil,
        trialDuration: ISODuration? = nil,
        defaultLocale: String = "en",
        localizations: [String: ProductLocalization],
        sortOrder: Int = 0,
        group: String? = nil
    ) {
        self.productID = productID
        self.type = type
        self.storeProductIDs = storeProductIDs
        self.reviewState = reviewState
        self.clearedForSale = clearedForSale
        self.free = free
        self.includedInVariants = includedInVariants
        self.grandfatheredBelowVersion = grandfatheredBelowVersion
        self.minAppVersion = minAppVersion
        self.belowMinVersion = belowMinVersion
        self.entitlements = entitlements
        self.consumableQuantity = consumableQuantity
        self.duration = duration
        self.trialDuration = trialDuration
        self.defaultLocale = defaultLocale
        self.localizations = localizations
        self.sortOrder = sortOrder
        self.group = group
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case productID = "product_id"
        case type
        case storeProductIDs = "store_product_ids"
        case reviewState = "review_state"
        case clearedForSale = "cleared_for_sale"
        case free
        case includedInVariants = "included_in_variants"
        case grandfatheredBelowVersion = "grandfathered_below_version"
        case minAppVersion = "min_app_version"
        case belowMinVersion = "below_min_version"
        case entitlements
        case consumableQuantity = "consumable_quantity"
        case duration
        case trialDuration = "trial_duration"
        case defaultLocale = "default_locale"
        case localizations
        case sortOrder = "sort_order"
        case group
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decode(String.self, forKey: .productID)
        type = try container.decode(ProductType.self, forKey: .type)
        storeProductIDs = try container.decodeIfPresent([StorePlatform: String].self, forKey: .storeProductIDs) ?? [:]
        reviewState = try container.decode(ReviewState.self, forKey: .reviewState)
        clearedForSale = try container.decodeIfPresent(Bool.self, forKey: .clearedForSale) ?? false
        free = try container.decodeIfPresent(Bool.self, forKey: .free) ?? false
        includedInVariants = try container.decodeIfPresent([String].self, forKey: .includedInVariants) ?? []
        grandfatheredBelowVersion = try container.decodeIfPresent(AppVersion.self, forKey: .grandfatheredBelowVersion)
        minAppVersion = try container.decodeIfPresent(AppVersion.self, forKey: .minAppVersion)
        belowMinVersion = try container.decodeIfPresent(BelowMinVersionBehavior.self, forKey: .belowMinVersion) ?? .hide
        entitlements = try container.decodeIfPresent([String].self, forKey: .entitlements) ?? []
        consumableQuantity = try container.decodeIfPresent(Int.self, forKey: .consumableQuantity)
        duration = try container.decodeIfPresent(ISODuration.self, forKey: .duration)
        trialDuration = try container.decodeIfPresent(ISODuration.self, forKey: .trialDuration)
        defaultLocale = try container.decode(String.self, forKey: .defaultLocale)
        localizations = try container.decode([String: ProductLocalization].self, forKey: .localizations)
        sortOrder = try container.decodeIfPresent(Int.self, forKey: .sortOrder) ?? 0
        group = try container.decodeIfPresent(String.self, forKey: .group)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(type, forKey: .type)
        try container.encode(storeProductIDs, forKey: .storeProductIDs)
        try container.encode(reviewState, forKey: .reviewState)
        try container.encode(clearedForSale, forKey: .clearedForSale)
        try container.encode(free, forKey: .free)
        try container.encode(includedInVariants, forKey: .includedInVariants)
        try container.encodeIfPresent(grandfatheredBelowVersion, forKey: .grandfatheredBelowVersion)
        try container.encodeIfPresent(minAppVersion, forKey: .minAppVersion)
        try container.encode(belowMinVersion, forKey: .belowMinVersion)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encodeIfPresent(consumableQuantity, forKey: .consumableQuantity)
        try container.encodeIfPresent(duration, forKey: .duration)
        try container.encodeIfPresent(trialDuration, forKey: .trialDuration)
        try container.encode(defaultLocale, forKey: .defaultLocale)
        try container.encode(localizations, forKey: .localizations)
        try container.encode(sortOrder, forKey: .sortOrder)
        try container.encodeIfPresent(group, forKey: .group)
    }
}
