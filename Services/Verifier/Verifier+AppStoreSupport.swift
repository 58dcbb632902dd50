import Hummingbird
import Logging
import PostgresNIO
import ShopkeeperHTTP

/// The App Store Server API's support tools: refund history, notification recovery (a route and a background job) and
/// renewal-date extensions, on the verifier's shared parts.
extension VerifierComponents {
    /// Adds `/v1/admin/stores/{store}/refunds`, `.../notification-recovery` and
    /// `.../subscriptions/{original_transaction_id}/extend` (each answers for `apple` only).
    func addAppStoreSupportRoutes(
        to router: Router<ServiceRequestContext>, settings: VerifierSettings, database: PostgresClient, logger: Logger
    ) {
        let news = StoreNewsApplier(transactions: transactions, projections: projections, logger: logger)
        router.addRoutes(
            RefundHistoryController(
                credentials: credentials, apple: service.apple, news: news, database: database
            ).endpoints,
            atPath: "/v1/admin/stores")
        router.addRoutes(
            NotificationRecoveryController(
                credentials: credentials, recovery: notificationRecovery(logger: logger),
                repository: NotificationRecoveryPostgresRepository(client: database, logger: logger),
                maxBodyBytes: settings.service.maxBodyBytes, interval: settings.notificationRecovery.interval
            ).endpoints,
            atPath: "/v1/admin/stores")
        router.addRoutes(
            RenewalExtensionController(
                service: RenewalExtensionService(
                    credentials: credentials, notifications: appleNotifications,
                    extensions: RenewalExtensionPostgresRepository(client: database, logger: logger), news: news,
                    database: database, logger: logger),
                maxBodyBytes: settings.service.maxBodyBytes
            ).endpoints,
            atPath: "/v1/admin/stores")
    }

    /// The background job that recovers App Store notifications that never arrived, and refunds no notification
    /// tells of.
    func notificationRecoveryJob(
        settings: VerifierSettings, database: PostgresClient, startup: StartupGate, logger: Logger
    ) -> NotificationRecoveryJob {
        NotificationRecoveryJob(
            recovery: notificationRecovery(logger: logger),
            repository: NotificationRecoveryPostgresRepository(client: database, logger: logger),
            settings: settings.notificationRecovery,
            refunds: RefundLookups(
                credentials: credentials, apple: service.apple,
                news: StoreNewsApplier(transactions: transactions, projections: projections, logger: logger),
                repository: RefundLookupPostgresRepository(client: database, logger: logger),
                perRun: settings.notificationRecovery.refundLookupsPerRun, logger: logger),
            startup: startup, logger: logger)
    }

    private func notificationRecovery(logger: Logger) -> NotificationRecovery {
        NotificationRecovery(
            credentials: credentials, api: service.apple.api, notifications: appleNotifications, logger: logger)
    }
}
