import ShopkeeperModels
import ShopkeeperStores

/// Play's monetization resources in the catalog sync's words (``StoreCatalogProduct``). Pure.
///
/// - A one-time product is read from its legacy-compatible buy option (the one older Play Billing flows sell), else
///   its first buy option, else its first option: that option's state and its regions `AVAILABLE` with a price. Play
///   has no consumable flag (the app decides by consuming): a multi-quantity option is taken for a consumable, any
///   other for a non-consumable; the type matters only for products the sync creates.
/// - A subscription is read from its legacy-compatible auto-renewing base plan, else its first active one, else its
///   first: that plan's state, billing period and regions open to new subscribers; a prepaid plan is a non-renewing
///   subscription. Its active offers on that plan are listed. Play has no subscription groups.
/// - Territories are Play's region codes (ISO 3166-1 alpha-2, `US`), prices the `Money` as a plain decimal.
enum GooglePlayCatalogMapping {
    /// A one-time product.
    static func product(_ product: GoogleOneTimeProduct) -> StoreCatalogProduct {
        let options = product.purchaseOptions ?? []
        let option =
            options.first { $0.buyOption?.legacyCompatible == true } ?? options.first { $0.buyOption != nil }
            ?? options.first
        let state = option?.state ?? "DRAFT"
        let prices = (option?.regionalPricingAndAvailabilityConfigs ?? []).compactMap { config -> StorePrice? in
            guard config.availability == nil || config.availability == "AVAILABLE" else { return nil }
            return price(config.regionCode, config.price)
        }
        return StoreCatalogProduct(
            storeProductID: product.productId,
            type: option?.buyOption?.multiQuantityEnabled == true ? .consumable : .nonConsumable,
            referenceName: title(product.listings) ?? product.productId, storeState: state,
            reviewState: reviewState(state), prices: sorted(prices))
    }

    /// A subscription, with the offers Play lists for it.
    static func product(_ subscription: GoogleSubscriptionProduct, offers: [GoogleSubscriptionOffer])
        -> StoreCatalogProduct
    {
        let plans = subscription.basePlans ?? []
        let plan =
            plans.first { $0.autoRenewingBasePlanType?.legacyCompatible == true }
            ?? plans.first { $0.state == "ACTIVE" } ?? plans.first
        let state = plan?.state ?? "DRAFT"
        let prices = (plan?.regionalConfigs ?? []).compactMap { config -> StorePrice? in
            guard config.newSubscriberAvailability != false else { return nil }
            return price(config.regionCode, config.price)
        }
        let prepaid = plan?.autoRenewingBasePlanType == nil && plan?.prepaidBasePlanType != nil
        let activeOffers = offers.filter { $0.basePlanId == plan?.basePlanId && $0.state == "ACTIVE" }
        return StoreCatalogProduct(
            storeProductID: subscription.productId, type: prepaid ? .nonRenewing : .autoRenewable,
            referenceName: title(subscription.listings) ?? subscription.productId, storeState: state,
            reviewState: reviewState(state),
            subscriptionPeriod: (plan?.autoRenewingBasePlanType ?? plan?.prepaidBasePlanType)?.billingPeriodDuration,
            prices: sorted(prices), basePlanID: plan?.basePlanId, offerIDs: activeOffers.map(\.offerId).sorted())
    }

    /// A state of a purchase option or base plan: only `ACTIVE` is sold (approved: distribution builds see it); a
    /// draft is not yet sold (development builds only); an inactive one (`INACTIVE`, `INACTIVE_PUBLISHED`) is no
    /// longer sold: removed, hidden from every build.
    static func reviewState(_ state: String) -> ReviewState {
        switch state {
        case "ACTIVE": .approved
        case "INACTIVE", "INACTIVE_PUBLISHED": .removed
        default: .pendingDeveloperApproval
        }
    }

    /// The `en-US` listing's title, else the first listing's.
    private static func title(_ listings: [GoogleProductListing]?) -> String? {
        (listings?.first { $0.languageCode == "en-US" } ?? listings?.first)?.title
    }

    private static func price(_ region: String, _ money: GoogleMoney?) -> StorePrice? {
        guard let money, let decimal = money.decimal else { return nil }
        return StorePrice(territory: region, currency: money.currencyCode, price: decimal)
    }

    private static func sorted(_ prices: [StorePrice]) -> [StorePrice] {
        prices.sorted { $0.territory < $1.territory }
    }
}
