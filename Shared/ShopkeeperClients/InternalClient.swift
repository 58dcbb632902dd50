import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// Signed JSON calls from one Shopkeeper service to another's `/internal/` endpoints.
///
/// Every call carries the HMAC signature over method, path, timestamp, identity and body hash that
/// ``InternalAuthMiddleware`` checks, has a timeout and reads a bounded answer. A problem answer comes back as
/// ``RemoteProblem`` (the callee's verdict, to pass on as it is); no answer at all is
/// ``InternalCallError/unavailable(service:reason:)``.
package struct InternalClient: Sendable {
    package let service: String
    package let baseURL: URL
    package let httpClient: HTTPClient
    package let signature: InternalSignature
    package let timeout: Duration
    package var maxResponseBytes: Int

    package init(
        service: String, baseURL: URL, httpClient: HTTPClient, signature: InternalSignature, timeout: Duration,
        maxResponseBytes: Int = 16 << 20
    ) {
        self.service = service
        self.baseURL = baseURL
        self.httpClient = httpClient
        self.signature = signature
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// POSTs `body` as JSON for `appID`, signed as a call made with a key of `keyKind`, and decodes a 2xx answer as
    /// `Answer`.
    package func post<Answer: Decodable>(
        _ path: String, body: some Encodable, appID: String, keyKind: APIKeyKind, requestID: String?
    ) async throws -> Answer {
        try await post(
            path, body: body, caller: InternalCaller(appID: appID, keyKind: keyKind), requestID: requestID,
            as: Answer.self)
    }

    /// POSTs `body` as JSON for `caller` and decodes a 2xx answer as `Answer`.
    package func post<Answer: Decodable>(
        _ path: String, body: some Encodable, caller: InternalCaller?, requestID: String?, as: Answer.Type
    ) async throws -> Answer {
        try await post(path, body: body, caller: caller, requestID: requestID) { data in
            try JSONBody.decode(Answer.self, from: data)
        }
    }

    /// POSTs `body` as JSON for `caller` and reads a 2xx answer with `decode`.
    package func post<Answer>(
        _ path: String, body: some Encodable, caller: InternalCaller?, requestID: String?,
        decode: (Data) throws -> Answer
    ) async throws -> Answer {
        let json = try JSONBody.encode(body)
        var request = HTTPClientRequest(url: baseURL.absoluteString + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let requestID { request.headers.add(name: "x-request-id", value: requestID) }
        for (name, value) in signature.headers(
            method: "POST", pathAndQuery: path, caller: caller, contentSHA256: InternalSignature.bodyHash(json))
        {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: json))
        let status: Int
        let data: Data
        do {
            let response = try await httpClient.execute(request, timeout: .milliseconds(timeout.milliseconds))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: maxResponseBytes).readableBytesView)
        } catch {
            throw InternalCallError.unavailable(service: service, reason: "\(type(of: error))")
        }
        guard (200..<300).contains(status) else {
            if status < 500, let problem = try? JSONDecoder().decode(Problem.self, from: data) {
                throw RemoteProblem(problem: problem)
            }
            throw InternalCallError.unavailable(service: service, reason: "status \(status)")
        }
        do {
            return try decode(data)
        } catch {
            throw InternalCallError.unavailable(service: service, reason: "unreadable answer")
        }
    }
}

/// A sibling service gave no usable answer: unreachable, timed out, or failed with 5xx. Retrying later is safe.
package enum InternalCallError: Error, Equatable {
    case unavailable(service: String, reason: String)
}

/// A problem answered by a sibling service (a verdict on the request), passed on to the caller unchanged.
package struct RemoteProblem: ProblemError, Equatable {
    package var problem: Problem

    package init(problem: Problem) {
        self.problem = problem
    }

    /// The sibling's status with its title as the reason phrase (which titles the problem passed on).
    package var status: HTTPResponse.Status {
        HTTPResponse.Status(code: problem.status, reasonPhrase: problem.title)
    }
    package var code: String { problem.code }
    package var detail: String { problem.detail }
    package var fieldProblems: [FieldProblem] { problem.errors ?? [] }
}
