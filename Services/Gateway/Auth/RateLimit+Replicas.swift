import ShopkeeperCore

extension RateLimit {
    /// This replica's share of a limit the whole deployment enforces: the rate and the burst divided by the number of
    /// gateway replicas (`SHOPKEEPER_GATEWAY_REPLICAS`). The replicas together never admit more than the configured
    /// limit, whatever the load balancer does; a client whose requests all reach one replica gets that replica's share.
    ///
    /// - Throws: when the share's burst is below one request (such a bucket would refuse everything); the error names
    ///   `variable`.
    func share(ofReplicas replicas: Int, variable: String) throws(ConfigurationError) -> RateLimit {
        let share = RateLimit(perSecond: perSecond / Double(replicas), burst: burst / Double(replicas))
        guard share.burst >= 1 else {
            throw ConfigurationError(
                variable: variable,
                reason:
                    "the burst (\(burst)) divided among SHOPKEEPER_GATEWAY_REPLICAS (\(replicas)) is below one request")
        }
        return share
    }
}

extension RateLimits {
    /// Each limit's share for one of `replicas` gateway replicas (``RateLimit/share(ofReplicas:variable:)``).
    func share(ofReplicas replicas: Int) throws(ConfigurationError) -> RateLimits {
        RateLimits(
            publicKeys: try publicKeys.share(ofReplicas: replicas, variable: "SHOPKEEPER_RATE_LIMIT_PUBLIC"),
            publicClients: try publicClients.share(
                ofReplicas: replicas, variable: "SHOPKEEPER_RATE_LIMIT_PUBLIC_CLIENT"),
            publicAddresses: try publicAddresses.share(
                ofReplicas: replicas, variable: "SHOPKEEPER_RATE_LIMIT_PUBLIC_ADDRESS"),
            secretKeys: try secretKeys.share(ofReplicas: replicas, variable: "SHOPKEEPER_RATE_LIMIT_SECRET"))
    }
}
