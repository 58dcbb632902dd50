import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperReports

/// What a load of exchange rates wrote (the answer of `PUT /v1/admin/exchange-rates`).
struct ExchangeRateLoad: Sendable, Equatable, Encodable {
    var base: String
    /// Rates written (new or changed); a rate loaded again unchanged is not counted.
    var written: Int
    /// The first and last day the load gave rates of (`YYYY-MM-DD`).
    var from: String
    var to: String
    var currencies: [String]
}

/// One stored rate, as listed.
struct StoredExchangeRate: Sendable, Equatable, Encodable {
    /// `YYYY-MM-DD`.
    var day: String
    var currency: String
    var base: String
    var rate: String
    var source: String
}

/// Each app's exchange rates (`entitlements.exchange_rates`).
protocol ExchangeRateRepository: Sendable {
    /// Writes `set`'s rates (a day and currency loaded again takes the new rate); with `replace`, the app's other
    /// rates are removed first. Throws ``EntitlementsError/exchangeRateBaseMismatch`` when the app keeps rates against
    /// another base and `replace` is not set.
    func load(_ set: ExchangeRateSet, appID: String, replace: Bool) async throws -> ExchangeRateLoad
    /// The app's rates of the days `from`...`to` (both optional), of one currency or all, by day then currency.
    func list(appID: String, from: ReportDay?, to: ReportDay?, currency: String?, limit: Int) async throws
        -> [StoredExchangeRate]
}

/// ``ExchangeRateRepository`` on PostgreSQL: a load is one transaction under the app's advisory lock, so two loads of
/// different bases cannot both pass the base check.
struct ExchangeRatePostgresRepository: ExchangeRateRepository {
    let client: PostgresClient
    let logger: Logger

    func load(_ set: ExchangeRateSet, appID: String, replace: Bool) async throws -> ExchangeRateLoad {
        let days = set.rates.map(\.day.description)
        let currencies = set.rates.map(\.currency)
        let rates = set.rates.map(\.rate)
        let lockKey = "exchange_rates:\(appID)"
        let written = try await client.transaction(logger: logger) { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))", logger: logger)
            if replace {
                try await connection.run(
                    "DELETE FROM entitlements.exchange_rates WHERE app_id = \(appID)", logger: logger)
            } else {
                let other = try await connection.query(
                    """
                    SELECT base FROM entitlements.exchange_rates WHERE app_id = \(appID) AND base <> \(set.base) LIMIT 1
                    """, logger: logger)
                for try await stored in other.decode(String.self) {
                    throw EntitlementsError.exchangeRateBaseMismatch(stored: stored, given: set.base)
                }
            }
            let rows = try await connection.query(
                """
                INSERT INTO entitlements.exchange_rates AS r (app_id, currency, day, base, rate, source)
                SELECT \(appID), g.currency, g.day::date, \(set.base), g.rate::numeric, \(set.source)
                FROM unnest(\(days)::text[], \(currencies)::text[], \(rates)::text[]) AS g(day, currency, rate)
                ON CONFLICT (app_id, currency, day) DO UPDATE
                    SET base = EXCLUDED.base, rate = EXCLUDED.rate, source = EXCLUDED.source, loaded_at = now()
                    WHERE r.rate <> EXCLUDED.rate OR r.base <> EXCLUDED.base
                RETURNING 1
                """, logger: logger)
            var count = 0
            for try await _ in rows.decode(Int.self) { count += 1 }
            return count
        }
        let sorted = set.rates.map(\.day).sorted()
        return ExchangeRateLoad(
            base: set.base, written: written, from: sorted.first?.description ?? "",
            to: sorted.last?.description ?? "", currencies: Array(Set(currencies)).sorted())
    }

    func list(appID: String, from: ReportDay?, to: ReportDay?, currency: String?, limit: Int) async throws
        -> [StoredExchangeRate]
    {
        let fromText = from?.description
        let toText = to?.description
        let rows = try await client.query(
            """
            SELECT to_char(day, 'YYYY-MM-DD'), currency, base, rate::text, source
            FROM entitlements.exchange_rates
            WHERE app_id = \(appID) AND (\(currency)::text IS NULL OR currency = \(currency))
              AND (\(fromText)::text IS NULL OR day >= \(fromText)::text::date)
              AND (\(toText)::text IS NULL OR day <= \(toText)::text::date)
            ORDER BY day, currency
            LIMIT \(limit)
            """, logger: logger)
        var result: [StoredExchangeRate] = []
        for try await (day, currency, base, rate, source) in rows.decode((String, String, String, String, String).self)
        {
            result.append(StoredExchangeRate(day: day, currency: currency, base: base, rate: rate, source: source))
        }
        return result
    }
}
