import Foundation
import ShopkeeperModels
import Testing

@testable import Catalog

/// An experiment's results over a seeded data set, held to an independent computation: the expected figures below
/// were printed by `Tests/Oracles/experiment_results.py` (SciPy 1.17, NumPy), which defines the same data set.
@Suite struct ExperimentResultsTests {
    /// (customers, purchases each, refunds each, trial started, trial converted, revenue by currency in thousandths),
    /// as the oracle's `DATA`.
    typealias Group = (Int, Int, Int, Bool, Bool, [String: Int64])
    static let data: [(String, [Group])] = [
        (
            "a",
            [
                (300, 0, 0, false, false, [:]), (30, 1, 0, true, true, ["USD": 4990]),
                (6, 2, 0, false, false, ["USD": 9980]),
                (3, 1, 1, true, false, [:]), (5, 1, 0, false, false, ["EUR": 4490]), (20, 0, 0, true, false, [:]),
            ]
        ),
        (
            "b",
            [
                (280, 0, 0, false, false, [:]), (52, 1, 0, true, true, ["USD": 4990]), (2, 1, 1, false, false, [:]),
                (8, 1, 0, false, false, ["EUR": 4490]), (1, 2, 1, true, true, ["USD": 4990, "EUR": 4490]),
                (30, 0, 0, true, false, [:]),
            ]
        ),
    ]

    static func results() -> ExperimentResults {
        var customers: [ExposedCustomer] = []
        for (variant, groups) in data {
            for (count, purchases, refunds, trial, converted, revenue) in groups {
                customers += Array(
                    repeating: ExposedCustomer(
                        variant: variant, purchases: purchases, refunds: refunds, trialStarted: trial,
                        trialConverted: converted, revenue: revenue),
                    count: count)
            }
        }
        let experiment = Experiment(
            experimentID: "price", name: "Price",
            variants: [
                ExperimentVariant(key: "a", offeringID: "standard", weight: 1),
                ExperimentVariant(key: "b", offeringID: "annual", weight: 1),
            ], state: .running)
        return ExperimentResults(experiment: experiment, customers: customers.shuffled())
    }

    @Test func theFiguresMatchTheOracle() throws {
        let results = Self.results()
        let (a, b) = (results.variants[0], results.variants[1])
        // variant key, exposed, purchases, paying, refunds, trials, converted
        let countsA: [Int] = [
            a.customersExposed, a.purchases, a.payingCustomers, a.refunds, a.trialsStarted, a.trialsConverted,
        ]
        let countsB: [Int] = [
            b.customersExposed, b.purchases, b.payingCustomers, b.refunds, b.trialsStarted, b.trialsConverted,
        ]
        #expect(countsA == [364, 50, 41, 3, 53, 30])
        #expect(countsB == [373, 64, 61, 3, 83, 53])
        func close(_ value: Double?, _ expected: Double, _ tolerance: Double = 1e-9) -> Bool {
            guard let value else { return false }
            return abs(value - expected) < tolerance
        }
        #expect(close(a.conversion.rate, 0.11475409836065574))
        #expect(close(a.conversion.low, 0.08420162508973873))
        #expect(close(a.conversion.high, 0.14929037225919392))
        #expect(close(b.conversion.rate, 0.16533333333333333))
        #expect(close(b.conversion.low, 0.12952424463813975))
        #expect(close(b.conversion.high, 0.2045219260775686))
        #expect(close(a.chanceToBeBest, 0.022984205832101572, 1e-6))
        #expect(close(b.chanceToBeBest, 0.9770157941679029, 1e-6))

        #expect(a.revenue.map(\.currency) == ["EUR", "USD"] && b.revenue.map(\.currency) == ["EUR", "USD"])
        // currency: total, per customer, low, high, chance to be best (a, then b)
        let expected: [[(Double, Double, Double, Double, Double)]] = [
            [
                (22.45, 0.061675824175824186, 0.007914251777534513, 0.11543739657411387, 0.15009059913732523),
                (209.58, 0.5757692307692308, 0.38713374915194687, 0.7644047123865148, 0.1563361397514653),
            ],
            [
                (40.41, 0.1083378016085791, 0.03832361031401564, 0.17835199290314258, 0.8499094007626747),
                (264.47, 0.709034852546917, 0.5319908339173947, 0.8860788711764394, 0.8436638601484395),
            ],
        ]
        for (variant, rows) in zip([a, b], expected) {
            for (revenue, (total, mean, low, high, best)) in zip(variant.revenue, rows) {
                #expect(close(revenue.total, total, 1e-9), "\(variant.key) \(revenue.currency)")
                #expect(close(revenue.perCustomer, mean))
                #expect(close(revenue.low, low))
                #expect(close(revenue.high, high))
                #expect(close(revenue.chanceToBeBest, best, 1e-6))
            }
        }
    }

    @Test func theCSVHasOneRowPerVariantAndCurrency() {
        let lines = Self.results().csv().split(separator: "\r\n")
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("variant,offering_id,weight,customers_exposed,purchases,paying_customers"))
        #expect(lines[1].hasPrefix("a,standard,1,364,50,41,3,53,30,") && lines[1].contains(",EUR,22.45"))
        #expect(lines[4].hasPrefix("b,annual,1,373,64,61,3,83,53,") && lines[4].contains(",USD,264.47"))
    }

    @Test func aVariantNoOneSawHasNoFiguresButStillAnInterval() {
        let experiment = Experiment(
            experimentID: "x", name: "x",
            variants: [
                ExperimentVariant(key: "a", offeringID: "o", weight: 1),
                ExperimentVariant(key: "b", offeringID: "p", weight: 1),
            ])
        let results = ExperimentResults(experiment: experiment, customers: [])
        #expect(results.variants.map(\.customersExposed) == [0, 0])
        let conversion = results.variants[0].conversion
        #expect(
            abs(conversion.rate - 0.5) < 1e-9 && abs(conversion.low - 0.025) < 1e-9
                && abs(conversion.high - 0.975) < 1e-9)
        #expect(abs(results.variants[0].chanceToBeBest - 0.5) < 1e-9)
    }
}
