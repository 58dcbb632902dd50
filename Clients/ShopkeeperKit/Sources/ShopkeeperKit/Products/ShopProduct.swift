import Foundation

/// A catalog product with what the device's store says of it: Shopkeeper's catalog decides what is sold, to whom and
/// with what texts; the store says what it costs in the customer's storefront. Reads like the ``CatalogItem`` it
/// carries (`product.name`, `product.availability`).
@dynamicMemberLookup
public struct ShopProduct: Hashable, Sendable, Identifiable {
    /// The catalog's product.
    public var item: CatalogItem
    /// The store's product; `nil` when the product is not sold through the store (a free product) or the store does
    /// not offer it in this storefront (yet): show no price then.
    public var storeProduct: StoreProduct?
    /// Whether Shopkeeper deems this customer eligible for the store product's introductory offer (across both
    /// stores, on this device): `nil` when there is no offer or the server could not be asked.
    public var isEligibleForIntroOffer: Bool?
    /// The price to show when the store's products could not be loaded: the catalog's price hint (the product's
    /// own, or the price the last catalog sync kept for this storefront, `2.99 USD`). `nil` when the store answered.
    public var fallbackPrice: String?

    /// A product.
    public init(
        item: CatalogItem, storeProduct: StoreProduct? = nil, isEligibleForIntroOffer: Bool? = nil,
        fallbackPrice: String? = nil
    ) {
        self.item = item
        self.storeProduct = storeProduct
        self.isEligibleForIntroOffer = isEligibleForIntroOffer
        self.fallbackPrice = fallbackPrice
    }

    /// The catalog product id.
    public var id: String { item.productID }

    /// The catalog item's fields (`product.name`).
    public subscript<Value>(dynamicMember keyPath: KeyPath<CatalogItem, Value>) -> Value { item[keyPath: keyPath] }

    /// The store's localized price (`$2.99`, `2,99 €`), when the store sells it here; when the store's products
    /// could not be loaded, the ``fallbackPrice``.
    public var displayPrice: String? { storeProduct?.displayPrice ?? fallbackPrice }

    /// Whether ``displayPrice`` is the store's own (not the catalog's fallback).
    public var isPriceFromStore: Bool { storeProduct != nil }

    /// The introductory offer to show this customer: the store's, when Shopkeeper says the customer may have it.
    public var introductoryOffer: IntroductoryOffer? {
        isEligibleForIntroOffer == true ? storeProduct?.introductoryOffer : nil
    }

    /// The catalog's products, in the catalog's order, each with its store product (matched by store product id)
    /// and the eligibility answered for its catalog product id. `storeLoaded` false (the store's products could not
    /// be loaded): each product sold through the store shows its catalog price hint instead. Pure:
    /// ``Shopkeeper/products()`` gathers the inputs.
    public static func join(
        catalog: [CatalogItem], storeProducts: [StoreProduct], eligibility: [String: Bool] = [:],
        storeLoaded: Bool = true
    ) -> [ShopProduct] {
        let byStoreID = Dictionary(storeProducts.map { ($0.id, $0) }) { first, _ in first }
        return catalog.map { item in
            let store = item.storeProductID.flatMap { byStoreID[$0] }
            return ShopProduct(
                item: item, storeProduct: store,
                isEligibleForIntroOffer: store?.introductoryOffer == nil ? nil : eligibility[item.productID],
                fallbackPrice: storeLoaded || item.storeProductID == nil ? nil : item.priceHint)
        }
    }

    /// The catalog products whose eligibility to ask Shopkeeper about: those whose store product has an introductory
    /// offer.
    public static func needingEligibility(catalog: [CatalogItem], storeProducts: [StoreProduct]) -> [String] {
        let withOffer = Set(storeProducts.filter { $0.introductoryOffer != nil }.map(\.id))
        return catalog.filter { $0.storeProductID.map(withOffer.contains) ?? false }.map(\.productID)
    }
}
