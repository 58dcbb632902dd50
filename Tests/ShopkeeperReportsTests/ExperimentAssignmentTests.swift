import ShopkeeperCore
import Testing

/// Assignment is deterministic per customer and splits customers as the weights say.
@Suite struct ExperimentAssignmentTests {
    @Test func theSameCustomerAlwaysGetsTheSameVariant() {
        for customer in ["c-1", "c-2", "someone@example.com"] {
            let first = ExperimentAssignment.variant(
                app: "app", experiment: "exp", customer: customer, weights: [50, 50])
            for _ in 0..<3 {
                #expect(
                    ExperimentAssignment.variant(app: "app", experiment: "exp", customer: customer, weights: [50, 50])
                        == first)
            }
        }
    }

    /// Pearson's chi-square over 100,000 customer ids: with 3 variants (2 degrees of freedom) the statistic exceeds
    /// 13.816 with probability 0.001 when the split follows the weights (the 99.9% quantile of χ²₂). Deterministic:
    /// the ids and the hash are fixed, so this either always passes or always fails.
    @Test(arguments: [[50, 50], [20, 30, 50], [1, 1, 1, 97]])
    func theSplitFollowsTheWeights(_ weights: [Int]) {
        let customers = 100_000
        var counts = Array(repeating: 0, count: weights.count)
        for index in 0..<customers {
            counts[
                ExperimentAssignment.variant(
                    app: "demo-app", experiment: "price-test", customer: "customer-\(index)", weights: weights)] += 1
        }
        let total = Double(weights.reduce(0, +))
        let statistic = zip(counts, weights).reduce(0.0) { sum, pair in
            let expected = Double(customers) * Double(pair.1) / total
            return sum + (Double(pair.0) - expected) * (Double(pair.0) - expected) / expected
        }
        // χ² 99.9% quantiles by degrees of freedom (1, 2, 3): 10.828, 13.816, 16.266.
        let critical = [10.828, 13.816, 16.266][weights.count - 2]
        #expect(statistic < critical, "counts \(counts) for weights \(weights): χ² = \(statistic)")
    }

    @Test func anotherExperimentDoesNotMoveCustomers() {
        // Each experiment hashes with its own id: one experiment's assignments do not depend on any other's.
        let before = (0..<1000).map {
            ExperimentAssignment.variant(app: "a", experiment: "one", customer: "c\($0)", weights: [50, 50])
        }
        _ = (0..<1000).map {
            ExperimentAssignment.variant(app: "a", experiment: "two", customer: "c\($0)", weights: [10, 90])
        }
        let after = (0..<1000).map {
            ExperimentAssignment.variant(app: "a", experiment: "one", customer: "c\($0)", weights: [50, 50])
        }
        #expect(before == after)
        // And two experiments are independent of each other: their variants agree about half the time.
        let other = (0..<1000).map {
            ExperimentAssignment.variant(app: "a", experiment: "two", customer: "c\($0)", weights: [50, 50])
        }
        let agreeing = zip(before, other).filter { $0 == $1 }.count
        #expect((400...600).contains(agreeing))
    }

    @Test func aVariantWeightedZeroGetsNoOne() {
        for index in 0..<2000 {
            #expect(
                ExperimentAssignment.variant(app: "a", experiment: "e", customer: "c\(index)", weights: [0, 1, 1]) != 0)
        }
    }
}
