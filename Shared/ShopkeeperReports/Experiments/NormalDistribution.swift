import Foundation

/// The normal distribution N(μ, σ²): the sampling distribution of a mean (revenue per customer) over many customers.
package struct NormalDistribution: Sendable, Equatable {
    package let mean: Double
    package let standardDeviation: Double

    /// A normal distribution; `standardDeviation` must be positive.
    package init(mean: Double, standardDeviation: Double) {
        precondition(standardDeviation > 0, "a normal distribution's standard deviation must be positive")
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    /// The density at `x`.
    package func density(_ x: Double) -> Double {
        let z = (x - mean) / standardDeviation
        return exp(-z * z / 2) / (standardDeviation * (2 * Double.pi).squareRoot())
    }

    /// P(X ≤ x), through the complementary error function (accurate in both tails).
    package func cumulativeProbability(_ x: Double) -> Double {
        erfc(-(x - mean) / (standardDeviation * 2.0.squareRoot())) / 2
    }

    /// The `p`-quantile, by bisection over μ ± 40σ (beyond that a Double's CDF is 0 or 1).
    package func quantile(_ p: Double) -> Double {
        var low = mean - 40 * standardDeviation
        var high = mean + 40 * standardDeviation
        if p <= 0 { return low }
        if p >= 1 { return high }
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if cumulativeProbability(middle) < p { low = middle } else { high = middle }
            if high - low <= standardDeviation * 1e-13 { break }
        }
        return (low + high) / 2
    }
}
