import Foundation

/// The Beta(α, β) distribution: the posterior of a conversion rate after `successes` in `trials` under a uniform prior
/// is Beta(1 + successes, 1 + trials − successes). Densities are worked out in logarithms, so counts in the hundreds
/// of thousands neither overflow nor underflow.
package struct BetaDistribution: Sendable, Equatable {
    package let alpha: Double
    package let beta: Double

    /// A Beta distribution; both shapes must be positive.
    package init(alpha: Double, beta: Double) {
        precondition(alpha > 0 && beta > 0, "Beta shapes must be positive")
        self.alpha = alpha
        self.beta = beta
    }

    /// The posterior of a rate after `successes` out of `trials`, from the uniform prior Beta(1, 1).
    package static func posterior(successes: Int, trials: Int) -> BetaDistribution {
        BetaDistribution(alpha: 1 + Double(successes), beta: 1 + Double(max(trials - successes, 0)))
    }

    package var mean: Double { alpha / (alpha + beta) }

    package var standardDeviation: Double {
        let total = alpha + beta
        return (alpha * beta / (total * total * (total + 1))).squareRoot()
    }

    /// The logarithm of the normalizing constant B(α, β).
    private var logBeta: Double { lgamma(alpha) + lgamma(beta) - lgamma(alpha + beta) }

    /// The density at `x`.
    package func density(_ x: Double) -> Double {
        guard x > 0, x < 1 else {
            if x == 0 { return alpha < 1 ? .infinity : (alpha == 1 ? exp(-logBeta) : 0) }
            if x == 1 { return beta < 1 ? .infinity : (beta == 1 ? exp(-logBeta) : 0) }
            return 0
        }
        return exp((alpha - 1) * log(x) + (beta - 1) * log1p(-x) - logBeta)
    }

    /// P(X ≤ x): the regularized incomplete beta function I_x(α, β).
    package func cumulativeProbability(_ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let front = exp(alpha * log(x) + beta * log1p(-x) - logBeta)
        // The continued fraction converges fast below the mean; above it, use the symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
        if x < (alpha + 1) / (alpha + beta + 2) {
            return front * Self.continuedFraction(x: x, a: alpha, b: beta) / alpha
        }
        return 1 - front * Self.continuedFraction(x: 1 - x, a: beta, b: alpha) / beta
    }

    /// The `p`-quantile: the x with P(X ≤ x) = p, found by bisection (the CDF is monotone; 100 halvings reach a
    /// Double's precision).
    package func quantile(_ p: Double) -> Double {
        if p <= 0 { return 0 }
        if p >= 1 { return 1 }
        var low = 0.0
        var high = 1.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if cumulativeProbability(middle) < p { low = middle } else { high = middle }
            if high - low < 1e-15 { break }
        }
        return (low + high) / 2
    }

    /// The continued fraction of the incomplete beta function, evaluated with the modified Lentz method
    /// (Numerical Recipes, 3rd edition, §6.4).
    private static func continuedFraction(x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        let epsilon = 1e-15
        let sum = a + b
        let plusOne = a + 1
        let minusOne = a - 1
        var c = 1.0
        var d = 1 - sum * x / plusOne
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var fraction = d
        // Convergence takes about √max(a, b) steps: a bound far above that for any count a report sees.
        for m in 1...100_000 {
            let step = Double(m)
            let twoM = 2 * step
            var numerator = step * (b - step) * x / ((minusOne + twoM) * (a + twoM))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            fraction *= d * c
            numerator = -(a + step) * (sum + step) * x / ((a + twoM) * (plusOne + twoM))
            d = 1 + numerator * d
            if abs(d) < tiny { d = tiny }
            c = 1 + numerator / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < epsilon { break }
        }
        return fraction
    }
}
