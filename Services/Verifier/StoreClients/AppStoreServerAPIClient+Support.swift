import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// What Apple answered a support call: the answer, or a refusal in Apple's words (an HTTP status and Apple's
/// `errorCode`), left to the caller to explain.
enum AppStoreAnswer<Value: Sendable>: Sendable {
    case answered(Value)
    case refused(status: Int, errorCode: Int64?)
}

/// The App Store Server API's support endpoints: Get Refund History, Get Notification History, Extend a Subscription
/// Renewal Date.
extension AppStoreServerAPIClient {
    /// `GET /inApps/v2/refund/lookup/{id}?revision=` (Get Refund History): every page of the refunded transactions
    /// of the customer who made `transactionID`, in `environment`, or from the first environment the app accepts
    /// that knows the transaction when `nil`. `nil` when no environment knows it.
    func refundHistory(
        _ transactionID: String, environment: StoreEnvironment?, credentials: AppleCredentials, key: AppStoreAPIKey,
        maxPages: Int = 50
    ) async throws(VerifierError) -> [String]? {
        var environments = environment.map { [$0] } ?? credentials.environments.filter { $0 == .production }
        if environment == nil, credentials.environments.contains(.sandbox) { environments.append(.sandbox) }
        for environment in environments {
            var signed: [String] = []
            var revision: String?
            var pages = 0
            repeat {
                var url = baseURL(environment) + "/inApps/v2/refund/lookup/\(transactionID.pathSegmentEscaped)"
                if let revision { url += "?revision=\(revision.pathSegmentEscaped)" }
                let answer = try await call(url, credentials: credentials, key: key)
                // Not this environment's transaction (or not a transaction id Apple accepts at all).
                if pages == 0,
                    answer.status == 400
                        || (answer.status == 404
                            && Self.errorCode(answer) == Self.transactionNotFound)
                {
                    break
                }
                let page: AppStoreRefundHistoryResponse = try Self.decoded(answer)
                signed += page.signedTransactions ?? []
                pages += 1
                revision = page.hasMore == true ? page.revision : nil
                if revision == nil || pages >= maxPages { return signed }
            } while true
        }
        return nil
    }

    /// `POST /inApps/v1/notifications/history?paginationToken=` (Get Notification History): one page, in
    /// `environment`'s history. A refusal (a start date Apple no longer keeps, an expired pagination token) is
    /// answered as such; a failure to get an answer throws.
    func notificationHistory(
        _ request: AppStoreNotificationHistoryRequest, paginationToken: String?, environment: StoreEnvironment,
        credentials: AppleCredentials, key: AppStoreAPIKey
    ) async throws(VerifierError) -> AppStoreAnswer<AppStoreNotificationHistoryResponse> {
        var url = baseURL(environment) + "/inApps/v1/notifications/history"
        if let paginationToken { url += "?paginationToken=\(paginationToken.pathSegmentEscaped)" }
        let answer = try await call(
            url, method: .POST, body: try Self.encoded(request), credentials: credentials, key: key)
        guard answer.status == 200 else { return .refused(status: answer.status, errorCode: Self.errorCode(answer)) }
        return .answered(try Self.decoded(answer))
    }

    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` (Extend a Subscription Renewal Date), tried once:
    /// whether a lost answer extended the subscription is for the caller to find out before asking again. Apple's
    /// refusals are answered; no answer, 429 and 5xx throw ``VerifierError/storeUnavailable(store:reason:retryAfterSeconds:)``.
    func extendRenewalDate(
        _ originalTransactionID: String, _ request: AppStoreExtendRenewalDateRequest, environment: StoreEnvironment,
        credentials: AppleCredentials, key: AppStoreAPIKey
    ) async throws(VerifierError) -> AppStoreAnswer<AppStoreExtendRenewalDateResponse> {
        let url =
            baseURL(environment) + "/inApps/v1/subscriptions/extend/\(originalTransactionID.pathSegmentEscaped)"
        let answer = try await call(
            url, method: .PUT, body: try Self.encoded(request), credentials: credentials, key: key, retrying: false)
        guard answer.status == 200 else { return .refused(status: answer.status, errorCode: Self.errorCode(answer)) }
        return .answered(try Self.decoded(answer))
    }

    /// Apple's answer as `T`, or 503 when it is not one.
    static func decoded<T: Decodable>(_ answer: StoreHTTP.Answer) throws(VerifierError) -> T {
        guard answer.status == 200 else {
            let code = errorCode(answer).map(String.init) ?? "HTTP \(answer.status)"
            throw .storeUnavailable(store: "App Store", reason: "answer \(code)", retryAfterSeconds: 5)
        }
        guard let decoded = try? JSONDecoder().decode(T.self, from: answer.data) else {
            throw .storeUnavailable(store: "App Store", reason: "an unreadable answer", retryAfterSeconds: 5)
        }
        return decoded
    }

    private static func encoded<T: Encodable>(_ body: T) throws(VerifierError) -> Data {
        do {
            return try JSONEncoder().encode(body)
        } catch {
            throw .storeUnavailable(store: "App Store", reason: "a request that does not encode", retryAfterSeconds: 60)
        }
    }
}
