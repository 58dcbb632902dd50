import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import ShopkeeperCore

/// The verifier's HTTP calls to the stores: one client, a timeout per call, and failures sorted into
/// retryable ones (unreachable, timeout, 5xx, 429) and answers.
struct StoreHTTP: Sendable {
    let client: HTTPClient
    let timeout: Duration
    /// Largest store answer read; App Store history pages and receipts stay far below it.
    var maxResponseBytes = 8 << 20

    /// A store's answer.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer

        var data: Data { Data(body.readableBytesView) }

        /// `Retry-After` in seconds, when given.
        var retryAfter: Duration? {
            headers.first(name: "retry-after").flatMap(Int.init).map { .seconds($0) }
        }
    }

    /// Sends `request` to `endpoint`; a transport failure or timeout is
    /// ``StoreAttemptError/retryable(reason:retryAfter:)``. Every call is counted and timed
    /// (``VerifierMetrics/storeRequests``).
    func send(_ request: HTTPClientRequest, endpoint: StoreEndpoint, what: String) async throws(StoreAttemptError)
        -> Answer
    {
        let start = ContinuousClock.now
        func record(_ result: String) {
            VerifierMetrics.storeCall(
                endpoint, result: result, nanoseconds: Int64((ContinuousClock.now - start).nanoseconds))
        }
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            let body = try await response.body.collect(upTo: maxResponseBytes)
            record(VerifierMetrics.result(status: Int(response.status.code)))
            return Answer(status: Int(response.status.code), headers: response.headers, body: body)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            record("timeout")
            throw .retryable(reason: "\(what) timed out", retryAfter: nil)
        } catch {
            record("unreachable")
            throw .retryable(reason: "\(what) unreachable (\(type(of: error)))", retryAfter: nil)
        }
    }

    /// Sends `request` and sorts the answer: 429 and 5xx are retryable, everything else is returned.
    func sendSorted(_ request: HTTPClientRequest, endpoint: StoreEndpoint, what: String)
        async throws(StoreAttemptError) -> Answer
    {
        let answer = try await send(request, endpoint: endpoint, what: what)
        if answer.status == 429 {
            throw .retryable(reason: "\(what) rate-limited (429)", retryAfter: answer.retryAfter)
        }
        if answer.status >= 500 {
            throw .retryable(reason: "\(what) failed with \(answer.status)", retryAfter: answer.retryAfter)
        }
        return answer
    }
}
