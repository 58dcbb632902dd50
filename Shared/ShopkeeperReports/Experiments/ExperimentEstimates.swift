/// How sure a report is of a variant's figures. The method (also in `docs/architecture.md`, "Experiments (the math so far)"):
///
/// - **Conversion** (trials started, purchases, paying customers, over customers exposed): Bayesian, with a uniform
///   prior. After `k` of `n` customers converted the rate's posterior is Beta(1 + k, 1 + n − k); the report gives its
///   mean and the equal-tailed credible interval (2.5% and 97.5% quantiles for 95%), and each variant's chance that
///   its rate is the highest (``ChanceToBeBest``).
/// - **Revenue per customer** (per currency, over every customer exposed, those who paid nothing included):
///   frequentist, by the central limit theorem. The mean of `n` customers' revenue has standard error s/√n (s the
///   sample standard deviation); the interval is mean ± z·s/√n (z = 1.96 for 95%), and the chance to be best treats
///   each variant's mean as N(mean, s²/n). Revenue is heavy-tailed: with few paying customers the interval is wide
///   and approximate, and under two customers exposed, or when every customer spent the same, there is no interval.
package enum ExperimentEstimates {
    /// The two-sided level of every interval a report shows.
    package static let level = 0.95
}

/// A conversion rate with its credible interval.
package struct ConversionEstimate: Sendable, Equatable {
    /// Customers who converted.
    package let conversions: Int
    /// Customers exposed.
    package let exposed: Int
    /// The posterior mean, (1 + conversions) / (2 + exposed).
    package let rate: Double
    /// The equal-tailed credible interval at ``ExperimentEstimates/level``.
    package let low: Double
    package let high: Double
    /// The posterior, for ``ChanceToBeBest``.
    package let posterior: BetaDistribution

    /// The estimate after `conversions` of `exposed` customers converted (conversions above exposed are capped).
    package init(conversions: Int, exposed: Int) {
        let exposed = max(exposed, 0)
        let conversions = min(max(conversions, 0), exposed)
        let posterior = BetaDistribution.posterior(successes: conversions, trials: exposed)
        let tail = (1 - ExperimentEstimates.level) / 2
        self.conversions = conversions
        self.exposed = exposed
        self.rate = posterior.mean
        self.low = posterior.quantile(tail)
        self.high = posterior.quantile(1 - tail)
        self.posterior = posterior
    }
}

/// A mean over customers (revenue per customer in one currency) with its confidence interval.
package struct MeanEstimate: Sendable, Equatable {
    /// Customers the mean is over.
    package let count: Int
    /// The sample mean, sum / count (0 for no customers).
    package let mean: Double
    /// The standard error s/√n; nil under two customers or when every value is the same.
    package let standardError: Double?
    /// The interval at ``ExperimentEstimates/level``; nil where ``standardError`` is.
    package let low: Double?
    package let high: Double?

    /// The estimate from `count` values given by their sum and sum of squares (what SQL adds up in one pass).
    package init(count: Int, sum: Double, sumOfSquares: Double) {
        self.count = max(count, 0)
        guard count > 0 else {
            (mean, standardError, low, high) = (0, nil, nil, nil)
            return
        }
        let n = Double(count)
        mean = sum / n
        // The sample variance from the two sums; rounding can take an exact zero slightly below it.
        let variance = count > 1 ? max((sumOfSquares - sum * sum / n) / (n - 1), 0) : 0
        guard variance > 0 else {
            (standardError, low, high) = (nil, nil, nil)
            return
        }
        let error = (variance / n).squareRoot()
        let z = NormalDistribution(mean: 0, standardDeviation: 1).quantile(1 - (1 - ExperimentEstimates.level) / 2)
        standardError = error
        low = mean - z * error
        high = mean + z * error
    }

    /// The mean's sampling distribution, for ``ChanceToBeBest``; nil without a standard error.
    package var sampling: NormalDistribution? {
        standardError.map { NormalDistribution(mean: mean, standardDeviation: $0) }
    }
}
