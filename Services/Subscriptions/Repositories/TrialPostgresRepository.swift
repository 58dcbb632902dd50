import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperHTTP
import ShopkeeperModels

/// The app's own free trials in PostgreSQL. A start holds two transaction-scoped advisory locks, the customer's then
/// the device's, so concurrent starts for one customer or one device decide one after the other.
struct TrialPostgresRepository: TrialRepository {
    let client: PostgresClient
    let logger: Logger
    var now: @Sendable () -> Date = { Date() }

    func start(appID: String, customer: TrialCustomer, deviceID: String, productID: String?) async throws
        -> InternalTrialResponse
    {
        let at = now()
        guard let customerID = customer.customerID else {
            throw RequestError.invalid("/customer/customer_id", "is required")
        }
        return try await client.transaction(logger: logger) { connection in
            let product = try await trialProduct(appID: appID, productID: productID, on: connection)
            guard let duration = product.trialDuration.flatMap(ISODuration.init) else {
                throw SubscriptionsError.noTrial(product.productID)
            }
            try await connection.run(
                LockKey.self, try PostgresBindings("trial-customer:\(appID):\(customerID)"), logger: logger)
            try await connection.run(
                LockKey.self, try PostgresBindings("trial-device:\(appID):\(deviceID)"), logger: logger)
            if let existing = try await TrialRows.trial(
                appID: appID, customerIDs: customer.customerIDs, on: connection, logger: logger)
            {
                // Another device of the same customer sees the same trial; the device is now known to have had one.
                try await connection.run(
                    AddDevice.self, try PostgresBindings(appID, deviceID, existing.trialID), logger: logger)
                return InternalTrialResponse(trial: existing.info(at: at), started: false)
            }
            if try await TrialRows.deviceHadTrial(appID: appID, deviceID: deviceID, on: connection, logger: logger) {
                throw SubscriptionsError.trialUsedOnDevice
            }
            if try await TrialRows.storeIntroUsed(
                appID: appID, groupKey: product.groupKey, purchases: customer.purchases, on: connection, logger: logger)
                != nil
            {
                throw SubscriptionsError.trialAlreadyUsed(product.productID)
            }
            let ends = duration.added(to: at)
            let trialID = try await connection.run(
                Start.self,
                try PostgresBindings(appID, customerID, product.productID, product.groupKey, deviceID, at, ends),
                logger: logger
            ) { try $0.decode(UUID.self) }
            guard let trialID = trialID.first else { throw SubscriptionsError.trialUsedOnDevice }
            try await connection.run(AddDevice.self, try PostgresBindings(appID, deviceID, trialID), logger: logger)
            try await ChangeOutbox.appendTrial(
                .trialStarted, appID: appID, customerID: customerID, productID: product.productID,
                expiresAt: ends, on: connection, logger: logger)
            return InternalTrialResponse(
                trial: TrialInfo(state: .active, productID: product.productID, startedAt: at, expiresAt: ends),
                started: true)
        }
    }

    func trial(appID: String, customer: TrialCustomer) async throws -> TrialInfo {
        let at = now()
        return try await client.withConnection { connection in
            try await TrialRows.trial(appID: appID, customerIDs: customer.customerIDs, on: connection, logger: logger)?
                .info(at: at)
                ?? TrialInfo(state: .none)
        }
    }

    func eligibility(appID: String, customer: TrialCustomer, productID: String, deviceID: String?) async throws
        -> EligibilityInfo
    {
        try await client.withConnection { connection in
            guard
                let product = try await CatalogSubscriptions.product(
                    appID: appID, productID: productID, on: connection, logger: logger)
            else { throw SubscriptionsError.productNotFound(productID) }
            func answer(_ reason: EligibilityReason?) -> EligibilityInfo {
                EligibilityInfo(productID: productID, eligible: reason == nil, reason: reason)
            }
            guard product.type == .autoRenewable || product.trialDuration != nil else {
                return answer(.notASubscription)
            }
            if let trial = try await TrialRows.trial(
                appID: appID, customerIDs: customer.customerIDs, on: connection, logger: logger),
                trial.groupKey == product.groupKey
            {
                return answer(.trialUsed)
            }
            if let used = try await TrialRows.storeIntroUsed(
                appID: appID, groupKey: product.groupKey, purchases: customer.purchases, on: connection, logger: logger)
            {
                return answer(used)
            }
            if let deviceID,
                try await TrialRows.deviceHadTrial(appID: appID, deviceID: deviceID, on: connection, logger: logger)
            {
                return answer(.deviceUsedTrial)
            }
            return answer(nil)
        }
    }

    func offerEligibility(appID: String, customer: TrialCustomer, productID: String, deviceID: String?) async throws
        -> OfferEligibility
    {
        let introductory = try await eligibility(
            appID: appID, customer: customer, productID: productID, deviceID: deviceID)
        let subscribed = try await client.withConnection { connection in
            guard
                let product = try await CatalogSubscriptions.product(
                    appID: appID, productID: productID, on: connection, logger: logger)
            else { throw SubscriptionsError.productNotFound(productID) }
            return try await TrialRows.storeIntroUsed(
                appID: appID, groupKey: product.groupKey, purchases: customer.purchases, on: connection,
                logger: logger) != nil
        }
        return OfferEligibility(introductory: introductory, subscribedInGroup: subscribed)
    }

    func sweepEnded(limit: Int) async throws -> Int {
        let at = now()
        return try await client.transaction(logger: logger) { connection in
            let ended = try await connection.run(Ended.self, try PostgresBindings(at, limit), logger: logger) { row in
                try row.decode((String, UUID, String, Date).self)
            }
            for (appID, customerID, productID, ends) in ended {
                try await ChangeOutbox.appendTrial(
                    .trialExpired, appID: appID, customerID: customerID, productID: productID, expiresAt: ends,
                    on: connection, logger: logger)
            }
            return ended.count
        }
    }

    /// The product to start a trial of: the one asked for, or the app's trial product.
    private func trialProduct(appID: String, productID: String?, on connection: PostgresConnection) async throws
        -> SubscriptionProduct
    {
        if let productID {
            guard
                let product = try await CatalogSubscriptions.product(
                    appID: appID, productID: productID, on: connection, logger: logger)
            else { throw SubscriptionsError.productNotFound(productID) }
            return product
        }
        guard let product = try await CatalogSubscriptions.trialProduct(appID: appID, on: connection, logger: logger)
        else { throw SubscriptionsError.noTrial(nil) }
        return product
    }

    private enum LockKey: PreparedSQL {
        static let sql = "SELECT pg_advisory_xact_lock(hashtextextended($1::text, 0))"
    }

    private enum Start: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.trials (app_id, customer_id, product_id, group_key, device_id, started_at, ends_at)
            VALUES ($1::text, $2::uuid, $3::text, $4::text, $5::text, $6::timestamptz, $7::timestamptz)
            ON CONFLICT (app_id, customer_id) DO NOTHING
            RETURNING trial_id
            """
    }

    private enum AddDevice: PreparedSQL {
        static let sql = """
            INSERT INTO subscriptions.trial_devices (app_id, device_id, trial_id)
            VALUES ($1::text, $2::text, $3::uuid)
            ON CONFLICT (app_id, device_id) DO NOTHING
            """
    }

    /// Trials that ended and were not announced yet; replicas skip each other's.
    private enum Ended: PreparedSQL {
        static let sql = """
            UPDATE subscriptions.trials SET ended_reported = true
            WHERE trial_id IN (
                SELECT trial_id FROM subscriptions.trials
                WHERE NOT ended_reported AND ends_at <= $1::timestamptz
                ORDER BY ends_at LIMIT $2::bigint
                FOR UPDATE SKIP LOCKED)
            RETURNING app_id, customer_id, product_id, ends_at
            """
    }
}
