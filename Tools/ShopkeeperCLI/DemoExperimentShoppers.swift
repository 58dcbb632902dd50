import Foundation
import ShopkeeperModels

/// The customers `shopkeeper seed sales` sends to the demo shop's running experiment (``DemoShop/experiment``), so
/// that its results page has figures: each reads the offerings as a 3.0 build in a German storefront would (and is so
/// exposed to a variant, recorded once by the server), and some then buy the first package of the offering they
/// were shown, at the sandbox store, dated after the exposure: the garden club first (`standard`, variant b)
/// converts more often than a year of service first (`germany`, variant a), and some club buyers start with the free
/// week. Who converts is drawn from the seed before anything is read; which variant a customer gets is the server's.
struct DemoExperimentShoppers: Sendable {
    struct Shopper: Sendable {
        var customer: DemoSalesPlan.Customer
        /// Compared with the variant's conversion chance: the shopper buys when it is below.
        var draw: Double
        /// Whether a club buyer starts with the free week (every third shopper).
        var trial: Bool
    }

    /// The chance a shopper of each variant buys.
    static let conversion = ["a": 0.3, "b": 0.5]

    var shoppers: [Shopper]

    /// `count` shoppers drawn from `seed` (their ids are `demo-de-<name>`, apart from the plan's customers).
    static func make(count: Int, seed: UInt64) -> DemoExperimentShoppers {
        var random = SplitMix64(seed: seed ^ 0x5EED_E8E7)
        let shoppers = (0..<count).map { index in
            let base = DemoSalesPlan.names[index % DemoSalesPlan.names.count]
            let name = base + (index < DemoSalesPlan.names.count ? "" : "-\(index / DemoSalesPlan.names.count + 1)")
            let customer = DemoSalesPlan.Customer(
                appUserID: "demo-de-\(name)", google: false, storefront: "DEU", currency: "EUR", appVersion: "3.0",
                device: "phone-de-\(name)", purchases: [], subscription: [])
            let draw = Double(random.next() >> 11) / Double(UInt64(1) << 53)
            return Shopper(customer: customer, draw: draw, trial: index % 3 == 2)
        }
        return DemoExperimentShoppers(shoppers: shoppers)
    }

    /// What the shoppers did: exposed, and what they bought (trials included).
    struct Outcome: Sendable {
        var exposed = 0
        var purchases = 0
        var trials = 0
    }

    /// Exposes every shopper, then makes the purchases of those who convert through `buyer`. When the first shopper
    /// is shown no experiment (an app without one running for a 3.0 build in Germany), nobody shops.
    func shop(with buyer: DemoSalesBuyer) async throws -> Outcome {
        var outcome = Outcome()
        for (index, shopper) in shoppers.enumerated() {
            let (view, exposedAt) = try await exposure(
                of: shopper.customer, gateway: buyer.gateway, attempts: index == 0 ? 50 : 1)
            guard let pick = view.experiment else {
                if index == 0 { break }
                continue
            }
            outcome.exposed += 1
            guard shopper.draw < Self.conversion[pick.variant, default: 0],
                let current = view.offerings.first(where: { $0.offeringID == view.currentOfferingID }),
                let package = current.packages.first,
                let item = Self.items[package.product.productID]
            else { continue }
            try await buy(item, for: shopper, after: exposedAt, with: buyer)
            if shopper.trial && item.product == DemoSalesPlan.gardenClub.product {
                outcome.trials += 1
            } else {
                outcome.purchases += 1
            }
        }
        return outcome
    }

    /// Buys `item` at the sandbox store and presents it as the app would, dated at the first whole second after the
    /// exposure (store dates are whole seconds); a club buyer of `shopper.trial` starts with the free week.
    private func buy(
        _ item: DemoSalesPlan.Item, for shopper: Shopper, after exposedAt: Date, with buyer: DemoSalesBuyer
    )
        async throws
    {
        let date = max(Date(), Date(timeIntervalSince1970: exposedAt.timeIntervalSince1970.rounded(.up) + 1))
        var purchase = DemoSalesPlan.Purchase(item: item, date: date)
        if item.product == DemoSalesPlan.gardenClub.product {
            purchase.trial = shopper.trial
            purchase.expires = date.addingTimeInterval(shopper.trial ? 7 * 86_400 : 30 * 86_400)
        }
        let created = try await buyer.applePurchase(purchase, customer: shopper.customer, original: nil)
        try await buyer.present(shopper.customer, proof: ["signed_transaction": created.signed])
    }

    /// The demo's products a package can sell, by catalog id.
    static let items = Dictionary(
        uniqueKeysWithValues: [
            DemoSalesPlan.extraGarden, DemoSalesPlan.serviceYear, DemoSalesPlan.gardenClub, DemoSalesPlan.greenhouse,
        ].map { ($0.product, $0) })

    /// Reads the offerings as the customer's 3.0 build in Germany. A catalog change shows on every replica within a
    /// second, so the first shopper asks again (up to `attempts` times, 100 ms apart) until the just-started
    /// experiment appears; an answer without one records no exposure.
    private func exposure(of customer: DemoSalesPlan.Customer, gateway: GatewayAPIClient, attempts: Int) async throws
        -> (OfferingsView, Date)
    {
        let query = [
            ("app_user_id", customer.appUserID), ("platform", "app_store"), ("app_version", customer.appVersion),
            ("country", "DE"), ("locale", "de-DE"),
        ].map { URLQueryItem(name: $0.0, value: $0.1) }
        var asked = 0
        while true {
            let data = try await DemoSalesBuyer.retrying {
                try await gateway.get("/v1/offerings", query: query, accept: "application/json")
            }
            let answered = Date()
            let view = try JSONDecoder().decode(OfferingsView.self, from: data)
            asked += 1
            if view.experiment != nil || asked >= attempts { return (view, answered) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
