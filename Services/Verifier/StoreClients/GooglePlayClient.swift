import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperStores

/// The Play Developer API: a service-account access token (RS256 assertion, JWT-bearer grant) cached
/// until shortly before it expires; products, subscriptionsv2 and acknowledgements; 429 and 5xx retried.
struct GooglePlayClient: Sendable {
    let http: StoreHTTP
    let apiURL: URL
    let retry: RetryPolicy
    let tokens: BearerTokenCache

    /// `purchases.products.get`.
    func product(_ productID: String, token: String, credentials: GoogleCredentials) async throws(VerifierError)
        -> GoogleProductPurchase
    {
        try await get(
            "purchases/products/\(productID.pathSegmentEscaped)/tokens/\(token.pathSegmentEscaped)",
            credentials: credentials)
    }

    /// `purchases.subscriptionsv2.get`.
    func subscription(token: String, credentials: GoogleCredentials) async throws(VerifierError)
        -> GoogleSubscriptionPurchaseV2
    {
        try await get("purchases/subscriptionsv2/tokens/\(token.pathSegmentEscaped)", credentials: credentials)
    }

    /// `purchases.products.acknowledge` or `purchases.subscriptions.acknowledge`.
    func acknowledge(_ acknowledgement: GoogleAcknowledgement, credentials: GoogleCredentials)
        async throws(VerifierError)
    {
        let path =
            switch acknowledgement {
            case .product(let productID, let token):
                "purchases/products/\(productID.pathSegmentEscaped)/tokens/\(token.pathSegmentEscaped):acknowledge"
            case .subscription(let subscriptionID, let token):
                "purchases/subscriptions/\(subscriptionID.pathSegmentEscaped)/tokens/\(token.pathSegmentEscaped):acknowledge"
            }
        let answer = try await call(.POST, path, credentials: credentials)
        guard (200..<300).contains(answer.status) else { throw Self.verdict(answer) }
    }

    private func get<T: Decodable>(_ path: String, credentials: GoogleCredentials) async throws(VerifierError) -> T {
        let answer = try await call(.GET, path, credentials: credentials)
        guard answer.status == 200 else { throw Self.verdict(answer) }
        guard let decoded = try? JSONDecoder().decode(T.self, from: answer.data) else {
            throw .storeUnavailable(store: "Google Play", reason: "an unreadable answer", retryAfterSeconds: 5)
        }
        return decoded
    }

    private func call(_ method: HTTPMethod, _ path: String, credentials: GoogleCredentials)
        async throws(VerifierError) -> StoreHTTP.Answer
    {
        let url =
            apiURL.absoluteString + "/androidpublisher/v3/applications/"
            + "\(credentials.packageName.pathSegmentEscaped)/\(path)"
        let account = credentials.serviceAccount
        let tokenKey = "\(account.clientEmail)/\(account.privateKeyId)"
        return try await retry.run(store: "Google Play") { (_: Int) async throws(StoreAttemptError) in
            let accessToken = try await self.accessToken(for: account, key: tokenKey)
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "authorization", value: "Bearer \(accessToken)")
            if method == .POST {
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: "{}"))
            }
            let answer = try await http.sendSorted(request, what: "the Play Developer API")
            if answer.status == 401 {
                tokens.forget(tokenKey)
                throw .retryable(reason: "Google refused the access token (401)", retryAfter: nil)
            }
            return answer
        }
    }

    /// The service account's access token, from the cache or the token endpoint.
    private func accessToken(for account: GoogleServiceAccountKey, key: String) async throws(StoreAttemptError)
        -> String
    {
        do {
            return try await tokens.token(for: key) {
                let assertion = try RS256Signer(serviceAccount: account).sign(GoogleServiceAccountClaims(key: account))
                var request = HTTPClientRequest(url: account.tokenUri)
                request.method = .POST
                request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
                let form =
                    "grant_type=\(GoogleServiceAccountClaims.grantType.pathSegmentEscaped)&assertion=\(assertion)"
                request.body = .bytes(ByteBuffer(string: form))
                let answer = try await http.sendSorted(request, what: "Google's token endpoint")
                guard answer.status == 200,
                    let response = try? JSONDecoder().decode(GoogleTokenResponse.self, from: answer.data)
                else {
                    throw StoreAttemptError.final(
                        .storeCredentialsRejected(.google, "the token endpoint answered \(answer.status)"))
                }
                return (response.accessToken, TimeInterval(response.expiresIn))
            }
        } catch let error as StoreAttemptError {
            throw error
        } catch {
            throw .final(.storeCredentialsRejected(.google, "the service account key cannot sign"))
        }
    }

    private static func verdict(_ answer: StoreHTTP.Answer) -> VerifierError {
        let message = (try? JSONDecoder().decode(GoogleErrorResponse.self, from: answer.data))?.error.message ?? ""
        switch answer.status {
        case 400, 404, 410:
            return .proofRejected(
                code: "invalid_purchase_token", detail: "Google Play does not know this purchase token (\(message)).")
        case 401, 403:
            return .storeCredentialsRejected(.google, "the Play Developer API answered \(answer.status) \(message)")
        default:
            return .storeUnavailable(store: "Google Play", reason: "answer \(answer.status)", retryAfterSeconds: 5)
        }
    }
}

/// A Play purchase to acknowledge once it is recorded (Google refunds unacknowledged purchases after three days).
enum GoogleAcknowledgement: Sendable, Equatable {
    case product(productID: String, token: String)
    case subscription(subscriptionID: String, token: String)
}
