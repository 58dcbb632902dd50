import ShopkeeperDatabase

extension EntitlementsMigrations {
    /// Exchange rates per app and day, which the charts convert figures of other currencies with.
    static let exchangeRates: [Migration] = [
        Migration(
            "0037_exchange_rates",
            sql: """
                -- Each app's exchange rates (PUT /v1/admin/exchange-rates): how many units of `currency` one unit of
                -- `base` bought on `day` (ECB's convention). One base per app (the service checks it under the app's
                -- lock); a conversion on a day uses the latest rate on or before it. Per app, not global: an app's
                -- secret key changes its own figures only.
                CREATE TABLE entitlements.exchange_rates (
                    app_id text NOT NULL,
                    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
                    day date NOT NULL,
                    base text NOT NULL CHECK (base ~ '^[A-Z]{3}$' AND base <> currency),
                    rate numeric NOT NULL CHECK (rate > 0),
                    source text NOT NULL CHECK (source IN ('ecb', 'csv', 'manual')),
                    loaded_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (app_id, currency, day)
                );
                """
        )
    ]
}
