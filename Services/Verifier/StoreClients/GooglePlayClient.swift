import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShopkeeperStores

/// The Play Developer API: a service-account access token (RS256 assertion, JWT-bearer grant) cached
/// until shortly before it expires; products, subscriptionsv2, acknowledgements, consumes and the voided-purchases list;
/// 429 and 5xx retried. The monetization endpoints the catalog sync reads: `GooglePlayClient+Catalog.swift`.
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

    /// `purchases.products.consume`: the customer may buy the product again. Google wants an empty body and answers
    /// an empty one.
    func consume(_ productID: String, token: String, credentials: GoogleCredentials) async throws(VerifierError) {
        let path = "purchases/products/\(productID.pathSegmentEscaped)/tokens/\(token.pathSegmentEscaped):consume"
        let answer = try await call(.POST, path, credentials: credentials, body: nil)
        guard (200..<300).contains(answer.status) else { throw Self.verdict(answer) }
    }

    /// The code of a voided-purchases query Google refused (400): a page token it no longer knows, or a window it
    /// does not allow.
    static let refusedVoidedQuery = "invalid_voided_purchases_query"

    /// `purchases.voidedpurchases.list` with `type=1` (one-time products and subscriptions; orders tell them apart):
    /// the page `pageToken` names (Google then ignores the times), else the first page of purchases Google saw voided
    /// since `startMillis` (UNIX ms) up to its own now: no `endTime`, so a clock ahead of Google's is never refused.
    /// Quantity-based partial refunds are asked for too (`includeQuantityBasedPartialRefund=true`: listed with their
    /// `voidedQuantity`), so that a refund of some units of a multi-quantity purchase found by polling claws them back.
    func voidedPurchases(startMillis: Int64, pageToken: String?, maxResults: Int, credentials: GoogleCredentials)
        async throws(VerifierError) -> GoogleVoidedPurchasesListResponse
    {
        var query = "type=1&includeQuantityBasedPartialRefund=true&maxResults=\(maxResults)"
        if let pageToken {
            query += "&token=\(pageToken.pathSegmentEscaped)"
        } else {
            query += "&startTime=\(startMillis)"
        }
        let answer = try await call(.GET, "purchases/voidedpurchases?\(query)", credentials: credentials)
        guard answer.status == 200 else {
            if answer.status == 400 {
                throw .proofRejected(
                    code: Self.refusedVoidedQuery,
                    detail: "Google refused the voided-purchases query (\(Self.message(answer))).")
            }
            throw Self.verdict(answer)
        }
        guard let decoded = try? JSONDecoder().decode(GoogleVoidedPurchasesListResponse.self, from: answer.data) else {
            throw .storeUnavailable(store: "Google Play", reason: "an unreadable answer", retryAfterSeconds: 5)
        }
        return decoded
    }

    private func get<T: Decodable>(_ path: String, credentials: GoogleCredentials) async throws(VerifierError) -> T {
        let answer = try await call(.GET, path, credentials: credentials)
        guard answer.status == 200 else { throw Self.verdict(answer) }
        guard let decoded = try? JSONDecoder().decode(T.self, from: answer.data) else {
            throw .storeUnavailable(store: "Google Play", reason: "an unreadable answer", retryAfterSeconds: 5)
        }
        return decoded
    }

    /// One call; a POST carries `body` (`{}` by default: acknowledgements take an optional JSON body; `nil` sends
    /// none).
    func call(_ method: HTTPMethod, _ path: String, credentials: GoogleCredentials, body: String? = "{}")
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
            // Without a body AsyncHTTPClient sends `Content-Length: 0`, as a POST needs.
            if method == .POST, let body {
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let answer = try await http.sendSorted(request, endpoint: .playDeveloperAPI, what: "the Play Developer API")
            // Google answers 401 both for a token it no longer takes (a new token may do) and, with
            // `PERMISSION_DENIED`, for a service account without access to the app (no token will do).
            if answer.status == 401 && !Self.isPermissionDenied(answer) {
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
                let answer = try await http.sendSorted(
                    request, endpoint: .googleOAuthToken, what: "Google's token endpoint")
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

    /// Whether Google's error answer says the caller lacks permission (`PERMISSION_DENIED`, reason
    /// `permissionDenied`), which another token does not change.
    static func isPermissionDenied(_ answer: StoreHTTP.Answer) -> Bool {
        guard let error = (try? JSONDecoder().decode(GoogleErrorResponse.self, from: answer.data))?.error else {
            return false
        }
        return error.status == "PERMISSION_DENIED" || error.errors?.contains { $0.reason == "permissionDenied" } == true
    }

    /// The message of Google's error answer (empty when there is none).
    static func message(_ answer: StoreHTTP.Answer) -> String {
        (try? JSONDecoder().decode(GoogleErrorResponse.self, from: answer.data))?.error.message ?? ""
    }

    private static func verdict(_ answer: StoreHTTP.Answer) -> VerifierError {
        let message = message(answer)
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

/// A one-time Play purchase to consume once it is durably granted, if it is a consumable (`purchases.products.consume`
/// lets the customer buy it again).
struct GoogleConsumption: Sendable, Equatable {
    var productID: String
    var token: String
}
