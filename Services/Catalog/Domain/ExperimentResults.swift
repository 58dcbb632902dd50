import Foundation
import ShopkeeperModels
import ShopkeeperReports

/// What one exposed customer did after the first exposure (``ExperimentResultsPostgresReader``).
struct ExposedCustomer: Sendable, Equatable {
    var variant: String
    /// Purchases first bought at or after the exposure, refunded or not.
    var purchases: Int
    /// Those of them refunded or revoked since.
    var refunds: Int
    /// Started a trial (the app's own, or a store's free trial or introductory period) after the exposure.
    var trialStarted: Bool
    /// A trial started after the exposure was followed by a purchase.
    var trialConverted: Bool
    /// Net revenue (thousandths) by currency from those purchases, refunded and revoked transactions left out.
    var revenue: [String: Int64]
}

/// An experiment's results per variant (`GET /v1/admin/reports/experiments/{id}`): counts, conversion to paying with
/// its credible interval, revenue per exposed customer per currency with its confidence interval, and each variant's
/// chance to be best; the figures of ``ConversionEstimate``, ``MeanEstimate`` and ``ChanceToBeBest``. Pure.
struct ExperimentResults: Encodable, Sendable, Equatable {
    var report = "experiment"
    var experiment: Experiment
    /// How sure the figures are, in words.
    var method = ExperimentResults.methodText
    var variants: [VariantResult]

    static let methodText =
        "Only facts at or after each customer's first exposure count. Conversion: paying customers over customers "
        + "exposed, Bayesian with a uniform prior (Beta(1 + k, 1 + n - k)), its mean and equal-tailed 95% credible "
        + "interval. Revenue per customer: net of refunds, per currency, over every exposed customer, the sample mean "
        + "with the normal 95% interval (none under two customers or without spread). Chance to be best: "
        + "the probability that a variant's figure is the highest, from the same distributions."

    struct VariantResult: Codable, Sendable, Equatable {
        var key: String
        var offeringID: String
        var weight: Int
        var customersExposed: Int
        var purchases: Int
        var payingCustomers: Int
        var refunds: Int
        var trialsStarted: Int
        var trialsConverted: Int
        var conversion: Interval
        /// Of the conversion rate.
        var chanceToBeBest: Double
        var revenue: [Revenue]

        enum CodingKeys: String, CodingKey {
            case key, weight, purchases, refunds, conversion, revenue
            case offeringID = "offering_id"
            case customersExposed = "customers_exposed"
            case payingCustomers = "paying_customers"
            case trialsStarted = "trials_started"
            case trialsConverted = "trials_converted"
            case chanceToBeBest = "chance_to_be_best"
        }
    }

    struct Interval: Codable, Sendable, Equatable {
        var rate: Double
        var low: Double
        var high: Double
    }

    /// Revenue in one currency (amounts in its units, such as dollars).
    struct Revenue: Codable, Sendable, Equatable {
        var currency: String
        var total: Double
        var perCustomer: Double
        var low: Double?
        var high: Double?
        /// Of the revenue per customer, among the variants with an interval in this currency.
        var chanceToBeBest: Double?

        enum CodingKeys: String, CodingKey {
            case currency, total, low, high
            case perCustomer = "per_customer"
            case chanceToBeBest = "chance_to_be_best"
        }
    }

    /// The results of `experiment` from its exposed customers.
    init(experiment: Experiment, customers: [ExposedCustomer]) {
        self.experiment = experiment
        let byVariant = Dictionary(grouping: customers, by: \.variant)
        let currencies = Set(customers.flatMap(\.revenue.keys)).sorted()
        var variants: [VariantResult] = []
        var posteriors: [BetaDistribution] = []
        var means: [String: [MeanEstimate]] = [:]
        for variant in experiment.variants {
            let members = byVariant[variant.key] ?? []
            let paying = members.filter { $0.revenue.values.contains { $0 > 0 } }.count
            let estimate = ConversionEstimate(conversions: paying, exposed: members.count)
            posteriors.append(estimate.posterior)
            var revenue: [Revenue] = []
            for currency in currencies {
                let amounts = members.map { Double($0.revenue[currency] ?? 0) / 1000 }
                let mean = MeanEstimate(
                    count: amounts.count, sum: amounts.reduce(0, +), sumOfSquares: amounts.reduce(0) { $0 + $1 * $1 })
                means[currency, default: []].append(mean)
                revenue.append(
                    Revenue(
                        currency: currency, total: amounts.reduce(0, +), perCustomer: mean.mean, low: mean.low,
                        high: mean.high))
            }
            variants.append(
                VariantResult(
                    key: variant.key, offeringID: variant.offeringID, weight: variant.weight,
                    customersExposed: members.count, purchases: members.reduce(0) { $0 + $1.purchases },
                    payingCustomers: paying, refunds: members.reduce(0) { $0 + $1.refunds },
                    trialsStarted: members.filter(\.trialStarted).count,
                    trialsConverted: members.filter(\.trialConverted).count,
                    conversion: Interval(rate: estimate.rate, low: estimate.low, high: estimate.high),
                    chanceToBeBest: 0, revenue: revenue))
        }
        for (index, chance) in ChanceToBeBest.of(posteriors).enumerated() { variants[index].chanceToBeBest = chance }
        for (position, currency) in currencies.enumerated() {
            let samplings = (means[currency] ?? []).compactMap(\.sampling)
            // A chance only when every variant has an interval: a variant without one cannot be compared.
            guard samplings.count == variants.count else { continue }
            for (index, chance) in ChanceToBeBest.of(samplings).enumerated() {
                variants[index].revenue[position].chanceToBeBest = chance
            }
        }
        self.variants = variants
    }

    /// One CSV row per variant and currency (a variant without revenue has one row, its currency fields empty).
    func csv() -> String {
        let header = [
            "variant", "offering_id", "weight", "customers_exposed", "purchases", "paying_customers", "refunds",
            "trials_started", "trials_converted", "conversion_rate", "conversion_low", "conversion_high",
            "chance_to_be_best", "currency", "revenue", "revenue_per_customer", "revenue_per_customer_low",
            "revenue_per_customer_high", "revenue_chance_to_be_best",
        ]
        var text = header.map(CSVField.text).joined(separator: ",") + "\r\n"
        func number(_ value: Double?) -> String { value.map { String($0) } ?? "" }
        for variant in variants {
            let common = [
                CSVField.text(variant.key), CSVField.text(variant.offeringID), String(variant.weight),
                String(variant.customersExposed), String(variant.purchases), String(variant.payingCustomers),
                String(variant.refunds), String(variant.trialsStarted), String(variant.trialsConverted),
                number(variant.conversion.rate), number(variant.conversion.low), number(variant.conversion.high),
                number(variant.chanceToBeBest),
            ]
            let revenues = variant.revenue.isEmpty ? [nil] : variant.revenue.map { Optional($0) }
            for revenue in revenues {
                let money = [
                    revenue.map { CSVField.text($0.currency) } ?? "", number(revenue?.total),
                    number(revenue?.perCustomer), number(revenue?.low), number(revenue?.high),
                    number(revenue?.chanceToBeBest),
                ]
                text += (common + money).joined(separator: ",") + "\r\n"
            }
        }
        return text
    }
}
