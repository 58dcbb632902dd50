import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request of ``ShopkeeperAPI``.
struct APIRequest: Sendable {
    var method: String
    var path: String
    var query: [URLQueryItem] = []
    /// The app user id the request acts for (adds the customer token).
    var customer: String? = nil
    var headers: [String: String] = [:]
    /// Keep the `200` body by `ETag` and revalidate with `If-None-Match`.
    var cached = false
    var body: Data? = nil
}

extension ShopkeeperAPI {
    /// Sends `request` (retrying by the policy) and decodes a `2xx` (or a `304` from the cache) as `T`.
    func send<T: Decodable>(_ request: APIRequest, as type: T.Type) async throws(ShopkeeperError) -> T {
        let data = try await sendForData(request)
        do {
            return try JSONCoding.decoder().decode(T.self, from: data)
        } catch {
            throw .decoding("\(request.method) \(request.path): \(error)")
        }
    }

    func sendForData(_ request: APIRequest) async throws(ShopkeeperError) -> Data {
        let url = try makeURL(request)
        let cacheKey = url.absoluteString
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            var urlRequest = URLRequest(url: url)
            urlRequest.httpMethod = request.method
            urlRequest.timeoutInterval = configuration.requestTimeout
            urlRequest.setValue("Bearer \(configuration.apiKey)", forHTTPHeaderField: "Authorization")
            urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            if let body = request.body {
                urlRequest.httpBody = body
                urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if let customer = request.customer, let token = try await customerToken(for: customer) {
                urlRequest.setValue(token, forHTTPHeaderField: "Shopkeeper-Customer-Token")
            }
            let cachedETag = request.cached ? await cache.etag(for: cacheKey) : nil
            if let cachedETag { urlRequest.setValue(cachedETag, forHTTPHeaderField: "If-None-Match") }
            let nonce = verifier?.makeNonce()
            if let nonce { urlRequest.setValue(nonce, forHTTPHeaderField: AnswerVerifier.nonceHeader) }
            let failure: ShopkeeperError
            do throws(ShopkeeperError) {
                let answer = try await exchange.send(urlRequest)
                if let verifier, let nonce, (200...299).contains(answer.status) || answer.status == 304 {
                    try verifier.verify(answer, target: AnswerVerifier.target(of: url), nonce: nonce)
                    // A signed 304 vouches for the entity tag it names: it must be the one whose body is kept.
                    if answer.status == 304, answer.header("ETag") != cachedETag {
                        throw .untrustedAnswer("Not Modified names another entity tag than the one kept")
                    }
                }
                if (200...299).contains(answer.status) {
                    if request.cached, let etag = answer.header("ETag") {
                        await cache.store(key: cacheKey, etag: etag, body: answer.body)
                    }
                    return answer.body
                }
                if answer.status == 304, request.cached, let body = await cache.body(for: cacheKey) {
                    await cache.countNotModified()
                    return body
                }
                failure = .server(
                    Self.problem(from: answer),
                    retryAfter: RetryPolicy.retryAfterSeconds(answer.header("Retry-After")))
            } catch {
                failure = error
            }
            guard failure.isRetryable, attempt < policy.maxAttempts, !Task.isCancelled else { throw failure }
            var retryAfter: Double? = nil
            if case .server(_, let seconds) = failure { retryAfter = seconds }
            let wait = policy.delay(afterAttempt: attempt, retryAfter: retryAfter)
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
        }
    }

    private func customerToken(for appUserID: String) async throws(ShopkeeperError) -> String? {
        guard let provider = configuration.customerToken else { return nil }
        do { return try await provider(appUserID) } catch {
            throw .server(
                Problem(
                    type: "about:blank", title: "Customer token unavailable", status: 401,
                    detail: "The app's customer token provider failed: \(error)", code: "customer_token_unavailable"),
                retryAfter: nil)
        }
    }

    private func makeURL(_ request: APIRequest) throws(ShopkeeperError) -> URL {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard var components = URLComponents(string: base + request.path) else {
            throw .transport("bad URL: \(base)\(request.path)")
        }
        if !request.query.isEmpty { components.queryItems = request.query }
        // `+` in a query value is a space to many servers: encode it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw .transport("bad URL: \(base)\(request.path)") }
        return url
    }

    /// The answer's problem document, or one made from its status when the body is not one.
    static func problem(from answer: HTTPAnswer) -> Problem {
        if let problem = try? JSONCoding.decoder().decode(Problem.self, from: answer.body) { return problem }
        return Problem(
            type: "about:blank", title: "HTTP \(answer.status)", status: answer.status,
            detail: String(decoding: answer.body.prefix(512), as: UTF8.self), code: "http_\(answer.status)")
    }
}
