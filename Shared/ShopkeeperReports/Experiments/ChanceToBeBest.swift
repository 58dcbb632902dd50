/// The chance that each of several independent quantities is the largest: for variant i,
/// P(i best) = ∫ fᵢ(x) · ∏_{j≠i} Fⱼ(x) dx, integrated with Simpson's rule. Below the highest of the variants'
/// lower bounds (where a variant holds all but 10⁻¹⁰ of its mass above) every integrand is nil: either that variant's
/// own density or its CDF as one of the others is; so the rule spans from there to the highest upper bound, where the
/// competing variants are. Deterministic (no sampling), so a report shows the same figure on every
/// read and a test can hold it to an independent computation.
package enum ChanceToBeBest {
    /// Intervals of Simpson's rule (even).
    static let intervals = 4000

    /// Each Beta posterior's chance to be the largest (conversion rates).
    package static func of(_ distributions: [BetaDistribution]) -> [Double] {
        compute(
            count: distributions.count,
            range: range(distributions.map { ($0.quantile(1e-10), $0.quantile(1 - 1e-10)) }),
            density: { distributions[$0].density($1) },
            cumulative: { distributions[$0].cumulativeProbability($1) }
        )
    }

    /// Each normal distribution's chance to be the largest (means such as revenue per customer).
    package static func of(_ distributions: [NormalDistribution]) -> [Double] {
        compute(
            count: distributions.count,
            range: range(distributions.map { ($0.quantile(1e-10), $0.quantile(1 - 1e-10)) }),
            density: { distributions[$0].density($1) },
            cumulative: { distributions[$0].cumulativeProbability($1) }
        )
    }

    private static func range(_ bounds: [(Double, Double)]) -> ClosedRange<Double> {
        let low = bounds.map(\.0).max() ?? 0
        let high = bounds.map(\.1).max() ?? 0
        return low...max(high, low)
    }

    private static func compute(
        count: Int,
        range: ClosedRange<Double>,
        density: (Int, Double) -> Double,
        cumulative: (Int, Double) -> Double
    ) -> [Double] {
        guard count > 1 else { return Array(repeating: 1, count: count) }
        let width = (range.upperBound - range.lowerBound) / Double(intervals)
        guard width > 0 else { return Array(repeating: 1 / Double(count), count: count) }
        var chances = Array(repeating: 0.0, count: count)
        for step in 0...intervals {
            let x = range.lowerBound + Double(step) * width
            let weight: Double = step == 0 || step == intervals ? 1 : (step % 2 == 1 ? 4 : 2)
            let cumulatives = (0..<count).map { cumulative($0, x) }
            for variant in 0..<count {
                var others = 1.0
                for other in 0..<count where other != variant { others *= cumulatives[other] }
                chances[variant] += weight * density(variant, x) * others
            }
        }
        // The integrals add up to 1 up to the rule's error; report them normalized so they do.
        let total = chances.reduce(0, +)
        guard total > 0 else { return Array(repeating: 1 / Double(count), count: count) }
        return chances.map { $0 / total }
    }
}
