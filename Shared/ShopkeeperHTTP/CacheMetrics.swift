import Metrics

/// `shopkeeper_cache_lookups_total{cache, result}`: the lookups of one in-memory cache, `result` `hit` or `miss`.
///
/// The counters are made once, with the cache; a lookup costs one atomic increment.
package struct CacheMetrics: Sendable {
    /// The metric's name, declared once for every cache.
    package static let lookups = "shopkeeper_cache_lookups_total"

    private let hits: Counter
    private let misses: Counter

    /// The counters of the cache named `cache` (`gateway_response`, `api_key`, `customer_info`).
    package init(cache: String) {
        hits = Counter(label: Self.lookups, dimensions: [("cache", cache), ("result", "hit")])
        misses = Counter(label: Self.lookups, dimensions: [("cache", cache), ("result", "miss")])
    }

    /// Counts one lookup.
    package func record(hit: Bool) {
        (hit ? hits : misses).increment()
    }
}
