import Foundation

/// Some weeks of the demo shop's sales, planned before anything is bought: which customers buy what, at which store
/// and when, which subscriptions start with a trial, renew or lapse, which consumables are spent, and the refund.
///
/// The plan is a pure function of its seed, its length and the moment it is made for (purchases are dated back from
/// it), so that a run's figures can be explained and reproduced. Every purchase is made at the sandbox store with its purchase date
/// in the past and presented to the gateway like an app would (``SeedCommand/Sales``): the facts are verified ones.
struct DemoSalesPlan: Sendable {
    /// A store product of the demo (``DemoShop``) as sold at the sandbox store.
    struct Item: Sendable {
        /// The catalog's product id (Google Play's product id is the same).
        var product: String
        /// Apple's product type string.
        var appleType: String
        /// The price in milliunits, in every currency the demo sells in.
        var price: Int64
    }

    /// One purchase: a one-time product, or one period of a subscription.
    struct Purchase: Sendable {
        var item: Item
        var date: Date
        var quantity: Int = 1
        /// For a subscription period: when it ends; `trial` for the free first week.
        var expires: Date? = nil
        var trial = false
        /// Units of a consumable spent after it was bought.
        var consume = 0
    }

    /// One customer's purchases, in date order. A subscription's periods form one chain (the first period's
    /// original transaction id is each later one's).
    struct Customer: Sendable {
        var appUserID: String
        var google: Bool
        /// Apple's storefront (country) and the currency its prices are in.
        var storefront: String
        var currency: String
        var appVersion: String
        var device: String
        var purchases: [Purchase]
        var subscription: [Purchase]
    }

    var customers: [Customer]
    /// The customer and product whose (App Store) purchase is refunded once every purchase is made.
    var refund: (appUserID: String, product: String)?

    static let extraGarden = Item(product: "extra_garden", appleType: "Non-Consumable", price: 2990)
    static let fertilizer = Item(product: "fertilizer_10", appleType: "Consumable", price: 990)
    static let greenhouse = Item(product: "greenhouse", appleType: "Non-Consumable", price: 4990)
    static let serviceYear = Item(product: "service_year", appleType: "Non-Renewing Subscription", price: 19990)
    static let gardenClub = Item(product: "garden_club", appleType: "Auto-Renewable Subscription", price: 2990)

    static let names = [
        "ada", "ben", "chloe", "dev", "emma", "farid", "grace", "hugo", "ines", "jonas", "kira", "liam", "mei",
        "noah", "olga", "pablo", "quinn", "rosa", "sami", "tess", "umar", "vera", "wen", "yara",
    ]

    /// The plan for `customerCount` customers over the `days` days before `now` (purchases stop an hour before it).
    static func make(customers customerCount: Int, days: Int, seed: UInt64, now: Date) -> DemoSalesPlan {
        var random = SplitMix64(seed: seed)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let latest = now.addingTimeInterval(-3600)
        /// A moment `daysAgo` days before now, at a time of day drawn from the seed, never after `latest`.
        func moment(daysAgo: Int) -> Date {
            let seconds = 8 * 3600 + Int(random.next(below: 12 * 3600))
            let date = now.addingTimeInterval(-Double(daysAgo) * 86_400).addingTimeInterval(
                Double(seconds - 14 * 3600))
            return Date(timeIntervalSince1970: min(date, latest).timeIntervalSince1970.rounded(.down))
        }
        var customers: [Customer] = []
        for index in 0..<customerCount {
            let name = names[index % names.count] + (index < names.count ? "" : "-\(index / names.count + 1)")
            let google = index % 4 == 1
            let european = index % 5 == 3
            let joined = 2 + Int(random.next(below: UInt64(max(1, days - 2))))
            var customer = Customer(
                appUserID: "demo-\(name)", google: google, storefront: european ? "DEU" : "USA",
                currency: european ? "EUR" : "USD", appVersion: ["1.4", "2.0", "2.1"][Int(random.next(below: 3))],
                device: "phone-\(name)", purchases: [], subscription: [])
            if random.chance(0.55) {
                customer.purchases.append(Purchase(item: extraGarden, date: moment(daysAgo: joined)))
            }
            for _ in 0..<Int(random.next(below: 4)) {
                let daysAgo = 1 + Int(random.next(below: UInt64(joined)))
                let quantity = 1 + Int(random.next(below: 2))
                customer.purchases.append(
                    Purchase(
                        item: fertilizer, date: moment(daysAgo: daysAgo), quantity: quantity,
                        consume: Int(random.next(below: UInt64(quantity * 10 + 1)))))
            }
            if random.chance(0.25) {
                customer.purchases.append(Purchase(item: greenhouse, date: moment(daysAgo: max(1, joined - 3))))
            }
            if !google, random.chance(0.12) {
                customer.purchases.append(Purchase(item: serviceYear, date: moment(daysAgo: joined)))
            }
            // Subscribers join early enough for a renewal; a few lapse after their first paid month.
            if !google, random.chance(0.5) {
                let start = moment(
                    daysAgo: max(joined, days * 3 / 5 + Int(random.next(below: UInt64(max(1, days / 3))))))
                var periodStart = start
                if random.chance(0.7) {
                    let end = start.addingTimeInterval(7 * 86_400)
                    customer.subscription.append(Purchase(item: gardenClub, date: start, expires: end, trial: true))
                    periodStart = end
                }
                let lapses = random.chance(0.25)
                while periodStart < latest {
                    let end = calendar.date(byAdding: .month, value: 1, to: periodStart) ?? periodStart
                    customer.subscription.append(Purchase(item: gardenClub, date: periodStart, expires: end))
                    periodStart = end
                    if lapses { break }
                }
            }
            customer.purchases.sort { $0.date < $1.date }
            customers.append(customer)
        }
        let refunded = customers.first { customer in
            !customer.google && customer.purchases.contains { $0.item.product == extraGarden.product }
        }
        return DemoSalesPlan(
            customers: customers, refund: refunded.map { ($0.appUserID, extraGarden.product) })
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same plan on every platform.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func next(below bound: UInt64) -> UInt64 { next() % max(1, bound) }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(UInt64(1) << 53) < probability
    }
}
