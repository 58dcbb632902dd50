import AsyncHTTPClient
import Crypto
import Foundation
import NIOHTTP1
import ShopkeeperModels
import ShopkeeperStores

/// The App Store Server API: JWT auth with a cached token (`iat` a minute in the past for clock
/// skew), production first and the sandbox on 4040010, 429 and 5xx retried, timeouts.
struct AppStoreServerAPIClient: Sendable {
    let http: StoreHTTP
    let productionURL: URL
    let sandboxURL: URL
    let retry: RetryPolicy
    let tokens: BearerTokenCache

    /// Apple's "transaction id not found".
    static let transactionNotFound: Int64 = 4_040_010

    /// `GET /inApps/v1/transactions/{id}`: the signed transaction, from the first environment that has it.
    func transactionInfo(_ transactionID: String, credentials: AppleCredentials, key: AppStoreAPIKey)
        async throws(VerifierError) -> String
    {
        let response: AppStoreTransactionInfoResponse = try await get(
            "/inApps/v1/transactions/\(transactionID.pathSegmentEscaped)", credentials: credentials, key: key)
        guard let signed = response.signedTransactionInfo else {
            throw .proofRejected(code: "transaction_not_found", detail: "Apple returned no transaction.")
        }
        return signed
    }

    /// `GET /inApps/v2/history/{id}`: every page of the customer's transaction history.
    func history(_ transactionID: String, credentials: AppleCredentials, key: AppStoreAPIKey, maxPages: Int = 20)
        async throws(VerifierError) -> [AppStoreHistoryResponse]
    {
        var pages: [AppStoreHistoryResponse] = []
        var revision: String?
        repeat {
            var path = "/inApps/v2/history/\(transactionID.pathSegmentEscaped)"
            if let revision { path += "?revision=\(revision.pathSegmentEscaped)" }
            let page: AppStoreHistoryResponse = try await get(path, credentials: credentials, key: key)
            pages.append(page)
            revision = page.hasMore == true ? page.revision : nil
        } while revision != nil && pages.count < maxPages
        return pages
    }

    /// `GET /inApps/v1/lookup/{orderId}` (Look Up Order ID): the signed transactions of the order a customer quotes
    /// from Apple's email receipt, from the first environment the app accepts that knows it; none when none does.
    func lookUpOrder(_ orderID: String, credentials: AppleCredentials, key: AppStoreAPIKey)
        async throws(VerifierError) -> [String]
    {
        var environments = credentials.environments.filter { $0 == .production }
        if credentials.environments.contains(.sandbox) { environments.append(.sandbox) }
        for environment in environments {
            let url = baseURL(environment) + "/inApps/v1/lookup/\(orderID.pathSegmentEscaped)"
            let answer = try await call(url, credentials: credentials, key: key)
            guard answer.status == 200 else { throw Self.verdict(answer) }
            guard let decoded = try? JSONDecoder().decode(AppStoreOrderLookupResponse.self, from: answer.data) else {
                throw .storeUnavailable(store: "App Store", reason: "an unreadable answer", retryAfterSeconds: 5)
            }
            let signed = decoded.signedTransactions ?? []
            if decoded.status == AppStoreOrderLookupStatus.valid.rawValue, !signed.isEmpty { return signed }
        }
        return []
    }

    /// `GET /inApps/v1/subscriptions/{id}` (Get All Subscription Statuses) in the subscription's environment: the
    /// latest signed transaction, renewal info and status of each of the customer's subscriptions.
    func subscriptionStatuses(
        _ transactionID: String, environment: StoreEnvironment, credentials: AppleCredentials, key: AppStoreAPIKey
    ) async throws(VerifierError) -> AppStoreStatusResponse {
        let url = baseURL(environment) + "/inApps/v1/subscriptions/\(transactionID.pathSegmentEscaped)"
        let answer = try await call(url, credentials: credentials, key: key)
        guard answer.status == 200 else { throw Self.verdict(answer) }
        guard let decoded = try? JSONDecoder().decode(AppStoreStatusResponse.self, from: answer.data) else {
            throw .storeUnavailable(store: "App Store", reason: "an unreadable answer", retryAfterSeconds: 5)
        }
        return decoded
    }

    /// `PUT /inApps/v2/transactions/consumption/{id}` (Send Consumption Information) in the transaction's
    /// environment; Apple answers 202 without a body.
    func sendConsumption(
        _ transactionID: String, body: AppStoreConsumptionRequest, environment: StoreEnvironment,
        credentials: AppleCredentials, key: AppStoreAPIKey
    ) async throws(VerifierError) {
        let url = baseURL(environment) + "/inApps/v2/transactions/consumption/\(transactionID.pathSegmentEscaped)"
        let json: Data
        do {
            json = try JSONEncoder().encode(body)
        } catch {
            throw .storeUnavailable(
                store: "App Store", reason: "a consumption answer that does not encode", retryAfterSeconds: 60)
        }
        let answer = try await call(url, method: .PUT, body: json, credentials: credentials, key: key)
        guard answer.status == 202 || answer.status == 200 else { throw Self.verdict(answer) }
    }

    /// The API's address for `environment`.
    func baseURL(_ environment: StoreEnvironment) -> String {
        (environment == .production ? productionURL : sandboxURL).absoluteString
    }

    /// A GET in production, then in the sandbox when Apple does not know the transaction there and the
    /// app accepts sandbox purchases.
    private func get<T: Decodable>(_ path: String, credentials: AppleCredentials, key: AppStoreAPIKey)
        async throws(VerifierError) -> T
    {
        var environments = credentials.environments.filter { $0 == .production }
        if credentials.environments.contains(.sandbox) { environments.append(.sandbox) }
        for environment in environments {
            let answer = try await call(baseURL(environment) + path, credentials: credentials, key: key)
            if answer.status == 404, Self.errorCode(answer) == Self.transactionNotFound { continue }
            guard answer.status == 200 else { throw Self.verdict(answer) }
            guard let decoded = try? JSONDecoder().decode(T.self, from: answer.data) else {
                throw .storeUnavailable(store: "App Store", reason: "an unreadable answer", retryAfterSeconds: 5)
            }
            return decoded
        }
        throw .proofRejected(code: "transaction_not_found", detail: "Apple knows no such transaction for this app.")
    }

    /// One call with the app's bearer token; 429, 5xx and no answer are tried again unless `retrying` is `false`
    /// (a call that is not safe to repeat blindly), 401 is ``VerifierError/storeCredentialsRejected(_:_:)``.
    func call(
        _ url: String, method: HTTPMethod = .GET, body: Data? = nil, credentials: AppleCredentials,
        key: AppStoreAPIKey, retrying: Bool = true
    ) async throws(VerifierError) -> StoreHTTP.Answer {
        let tokenKey = "\(key.issuerID)/\(key.keyID)/\(credentials.bundleID)"
        let policy = retrying ? retry : RetryPolicy(attempts: 1, base: retry.base, cap: retry.cap)
        return try await policy.run(store: "App Store") { (_: Int) async throws(StoreAttemptError) in
            let token: String
            do {
                token = try await tokens.token(for: tokenKey) {
                    try Self.makeToken(key: key, bundleID: credentials.bundleID)
                }
            } catch {
                throw .final(.storeCredentialsRejected(.apple, "the App Store Server API key cannot sign"))
            }
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "authorization", value: "Bearer \(token)")
            if let body {
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(body)
            }
            let answer = try await http.sendSorted(
                request, endpoint: .appStoreServerAPI, what: "the App Store Server API")
            if answer.status == 401 {
                tokens.forget(tokenKey)
                throw .final(.storeCredentialsRejected(.apple, "Apple refused the App Store Server API key (401)"))
            }
            return answer
        }
    }

    /// A bearer token: ES256, `kid` the key id, issued a minute ago for clock skew, good for 20 minutes.
    static func makeToken(key: AppStoreAPIKey, bundleID: String, now: Date = Date()) throws
        -> (token: String, lifetime: TimeInterval)
    {
        let privateKey = try P256.Signing.PrivateKey(pemRepresentation: key.privateKey)
        let signer = try ES256Signer(key: privateKey, header: JWSHeader(alg: "ES256", kid: key.keyID, typ: "JWT"))
        let claims = AppStoreServerAPIClaims(
            issuerID: key.issuerID, bundleID: bundleID, now: now.addingTimeInterval(-60), lifetime: 20 * 60)
        return (try signer.sign(claims), 19 * 60)
    }

    static func errorCode(_ answer: StoreHTTP.Answer) -> Int64? {
        (try? JSONDecoder().decode(AppStoreErrorPayload.self, from: answer.data))?.errorCode
    }

    private static func verdict(_ answer: StoreHTTP.Answer) -> VerifierError {
        let code = errorCode(answer).map(String.init) ?? "HTTP \(answer.status)"
        if answer.status == 404 || answer.status == 400 {
            return .proofRejected(
                code: "transaction_not_found", detail: "Apple does not know the transaction (\(code)).")
        }
        return .storeUnavailable(store: "App Store", reason: "answer \(code)", retryAfterSeconds: 5)
    }
}
