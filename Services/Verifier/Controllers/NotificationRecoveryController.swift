import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// `/v1/admin/stores/apple/notification-recovery` (secret key): the recovery job of lost App Store notifications.
///
/// - `GET`: where the job stands for the app, per environment: the last seen notification time (`checked_until`,
///   Apple's history is read up to it), how many notifications it recovered, its last run and error.
/// - `POST` `{"start_date", "end_date"?, "environment"?, "only_failures"?}`: reads Apple's notification history over
///   that range now (after a known outage, say), every notification by default, and records those Shopkeeper never
///   received, which are then processed like any notification; answers the counts per environment. Safe to repeat.
struct NotificationRecoveryController {
    let credentials: any CredentialsRepository
    let recovery: NotificationRecovery
    let repository: any NotificationRecoveryRepository
    let maxBodyBytes: Int
    /// Pages (of 20) one request reads per environment: a denser range answers `complete: false`.
    static let maxPages = 100

    /// `POST`'s body.
    struct RecoverRequest: Codable {
        var startDate: Date
        var endDate: Date?
        var environment: StoreEnvironment?
        var onlyFailures: Bool?

        enum CodingKeys: String, CodingKey {
            case environment
            case startDate = "start_date"
            case endDate = "end_date"
            case onlyFailures = "only_failures"
        }
    }

    /// `GET`'s answer.
    struct RecoveryState: Encodable {
        var interval: Int
        var environments: [RecoveryStatus]

        enum CodingKeys: String, CodingKey {
            case environments
            case interval = "interval_seconds"
        }
    }

    /// `POST`'s answer.
    struct RecoveryResult: Encodable {
        var startDate: Date
        var endDate: Date
        var environments: [NotificationRecovery.Outcome]

        enum CodingKeys: String, CodingKey {
            case environments
            case startDate = "start_date"
            case endDate = "end_date"
        }
    }

    let interval: Duration

    /// Under `:store` (see ``OrderLookupController/endpoints``).
    var endpoints: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get(":store/notification-recovery", use: status)
            .post(":store/notification-recovery", use: recover)
    }

    @Sendable func status(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let appID = try context.requireAppStoreSupportCaller().appID
        return try JSONBody.response(
            RecoveryState(
                interval: Int(interval.components.seconds), environments: try await repository.status(appID: appID)),
            headers: [.cacheControl: "no-store"])
    }

    @Sendable func recover(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let appID = try context.requireAppStoreSupportCaller().appID
        let body = try await JSONBody.decode(RecoverRequest.self, from: request, limit: maxBodyBytes)
        let now = Date()
        let end = min(body.endDate ?? now, now)
        guard body.startDate < end else {
            throw RequestError.invalid("/start_date", "must be before end_date (and before now)")
        }
        guard let credentials = try await credentials.apple(appID: appID) else {
            throw VerifierError.storeNotConfigured(.apple)
        }
        guard credentials.apiKey != nil else { throw AppStoreSupportError.apiKeyRequired }
        let accepted = credentials.environments.filter { $0 == .production || $0 == .sandbox }
        if let wanted = body.environment, !accepted.contains(wanted) {
            let names = accepted.map(\.rawValue).joined(separator: ", ")
            throw RequestError.invalid("/environment", "must be one of the app's App Store environments: \(names)")
        }
        var outcomes: [NotificationRecovery.Outcome] = []
        for environment in body.environment.map({ [$0] }) ?? accepted {
            outcomes.append(
                try await recovery.recover(
                    appID: appID, environment: environment, from: body.startDate, to: end,
                    onlyFailures: body.onlyFailures ?? false, maxPages: Self.maxPages))
        }
        context.logger.info(
            "notification history read on request",
            metadata: ["recorded": "\(outcomes.map(\.recorded).reduce(0, +))"])
        return try JSONBody.response(
            RecoveryResult(startDate: body.startDate, endDate: end, environments: outcomes),
            headers: [.cacheControl: "no-store"])
    }
}
