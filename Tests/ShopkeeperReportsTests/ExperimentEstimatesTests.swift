import Testing

@testable import ShopkeeperReports

/// The figures an experiment's results show, held to SciPy 1.17 (`scipy.stats.beta`, `scipy.stats.norm`,
/// `scipy.integrate.quad`): the expected values below were printed by `Tests/Oracles/experiment_estimates.py`, an
/// independent computation kept beside these tests so they can be printed again.
@Suite struct ExperimentEstimatesTests {
    /// (conversions, exposed) → posterior mean, 2.5% and 97.5% quantiles, CDF at 0.1.
    static let betaCases: [(Int, Int, Double, Double, Double, Double)] = [
        (0, 0, 0.5, 0.025, 0.975, 0.1),
        (3, 10, 0.3333333333333333, 0.10926344381909811, 0.6097425595724212, 0.018534761200000006),
        (120, 1000, 0.12075848303393213, 0.10132341964422845, 0.1416269997488508, 0.01773112197053758),
        (4800, 50000, 0.09601615935362585, 0.09344923350702944, 0.09861369443929824, 0.9986111935990237),
        (49990, 50000, 0.999780008799648, 0.9996322310939418, 0.9998901740370881, 0.0),
    ]

    @Test(arguments: 0..<5) func conversionMatchesTheBetaPosterior(_ index: Int) {
        let (conversions, exposed, mean, low, high, cdf) = Self.betaCases[index]
        let estimate = ConversionEstimate(conversions: conversions, exposed: exposed)
        #expect(abs(estimate.rate - mean) < 1e-12)
        #expect(abs(estimate.low - low) < 1e-9)
        #expect(abs(estimate.high - high) < 1e-9)
        #expect(abs(estimate.posterior.cumulativeProbability(0.1) - cdf) < 1e-9)
    }

    @Test func theDensityIsNormalizedEvenForLargeCounts() {
        // SciPy: beta(121, 881).pdf(mean) and beta(49991, 11).pdf(mean).
        let small = BetaDistribution.posterior(successes: 120, trials: 1000)
        #expect(abs(small.density(small.mean) - 38.72816748778788) < 1e-8)
        let large = BetaDistribution.posterior(successes: 49990, trials: 50000)
        #expect(abs(large.density(large.mean) - 5969.798453014823) / 5969.798453014823 < 1e-9)
    }

    @Test func impossibleCountsAreClampedNotTrusted() {
        let estimate = ConversionEstimate(conversions: 12, exposed: 10)
        #expect(estimate.conversions == 10)
        #expect(estimate.exposed == 10)
        #expect(ConversionEstimate(conversions: -1, exposed: -5).exposed == 0)
    }

    @Test func chanceToBeBestMatchesTheIntegral() {
        // SciPy quad of f_i · Π F_j; a Monte Carlo run of 2,000,000 draws gave 0.0461, 0.7270, 0.2269.
        let chances = ChanceToBeBest.of([
            ConversionEstimate(conversions: 100, exposed: 1000).posterior,
            ConversionEstimate(conversions: 120, exposed: 1000).posterior,
            ConversionEstimate(conversions: 110, exposed: 1000).posterior,
        ])
        let expected = [0.04620831498933201, 0.7268864978329833, 0.22690518717768535]
        for (chance, value) in zip(chances, expected) { #expect(abs(chance - value) < 1e-6) }
        #expect(abs(chances.reduce(0, +) - 1) < 1e-12)
    }

    @Test func aVariantFarAheadIsCertainlyBestAndTheCloseOnesStillSplit() {
        let chances = ChanceToBeBest.of([
            BetaDistribution.posterior(successes: 100_000, trials: 1_000_000),
            BetaDistribution.posterior(successes: 100_300, trials: 1_000_000),
            BetaDistribution.posterior(successes: 900_000, trials: 1_000_000),
        ])
        #expect(chances[2] > 1 - 1e-9)
        let close = ChanceToBeBest.of([
            BetaDistribution.posterior(successes: 100_000, trials: 1_000_000),
            BetaDistribution.posterior(successes: 100_000, trials: 1_000_000),
        ])
        #expect(abs(close[0] - 0.5) < 1e-9)
    }

    @Test func chanceToBeBestOfMeans() {
        let chances = ChanceToBeBest.of([
            NormalDistribution(mean: 1.9, standardDeviation: 0.2),
            NormalDistribution(mean: 2.1, standardDeviation: 0.25),
        ])
        #expect(abs(chances[0] - 0.26608561207442427) < 1e-6)
        #expect(abs(chances[1] - 0.7339143879255758) < 1e-6)
    }

    @Test func revenuePerCustomerHasTheNormalInterval() {
        // 100 customers: 90 paid nothing, 7 paid 499, 3 paid 999 (minor units). NumPy: mean 64.9, standard error
        // 20.87918348571857 (ddof=1), interval 23.97755234138814 ... 105.82244765861188 (z = 1.959963984540054).
        let estimate = MeanEstimate(count: 100, sum: 6490, sumOfSquares: 4_737_010)
        #expect(abs(estimate.mean - 64.9) < 1e-12)
        #expect(abs((estimate.standardError ?? 0) - 20.87918348571857) < 1e-9)
        #expect(abs((estimate.low ?? 0) - 23.97755234138814) < 1e-7)
        #expect(abs((estimate.high ?? 0) - 105.82244765861188) < 1e-7)
    }

    @Test func noIntervalWithoutSpread() {
        #expect(MeanEstimate(count: 0, sum: 0, sumOfSquares: 0).mean == 0)
        #expect(MeanEstimate(count: 1, sum: 499, sumOfSquares: 249_001).standardError == nil)
        let allAlike = MeanEstimate(count: 3, sum: 1497, sumOfSquares: 747_003)
        #expect(allAlike.mean == 499)
        #expect(allAlike.low == nil && allAlike.sampling == nil)
    }
}
