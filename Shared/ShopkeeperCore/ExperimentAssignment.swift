import Crypto

/// Which variant of an experiment a customer sees: a pure function of the app, the experiment and the customer, so
/// every device and alias of one customer (the caller passes the customer's canonical id, never an alias) sees the
/// same variant, any replica works it out alike, and starting or stopping another experiment moves no one (each
/// experiment hashes with its own id).
///
/// The customer's point in [0, 1) is the first 8 bytes of SHA-256("app␀experiment␀customer") read as a big-endian
/// integer over 2⁶⁴; variant i takes the share weightᵢ / Σ weights of that range, in order.
package enum ExperimentAssignment {
    /// The index into `weights` of the variant `customer` is assigned to. `weights` must hold at least one positive
    /// weight; a variant of weight 0 gets no one.
    package static func variant(app: String, experiment: String, customer: String, weights: [Int]) -> Int {
        let total = UInt64(weights.reduce(0) { $0 + max($1, 0) })
        guard total > 0 else { return 0 }
        let point = bucket(app: app, experiment: experiment, customer: customer, of: total)
        var start: UInt64 = 0
        for (index, weight) in weights.enumerated() where weight > 0 {
            start += UInt64(weight)
            if point < start { return index }
        }
        return weights.count - 1
    }

    /// The customer's bucket in 0..<`total`: the hash's 64-bit point scaled to `total` (the high word of the full
    /// product, so every bucket gets its fair share of the 2⁶⁴ points, off by at most one).
    static func bucket(app: String, experiment: String, customer: String, of total: UInt64) -> UInt64 {
        let digest = SHA256.hash(data: Array("\(app)\u{0}\(experiment)\u{0}\(customer)".utf8))
        let point = digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        return point.multipliedFullWidth(by: total).high
    }
}
