import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ShopkeeperCore

/// What one delivery attempt came to.
enum WebhookAttemptResult: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// Anything else, coarsely (``WebhookFailure``): a status, a timeout, a refused connection, TLS, DNS, a refused
    /// destination.
    case failed(WebhookFailure)
}

/// Makes one webhook request: the URL resolved and checked (``WebhookDestination``), then a signed `POST` of the
/// event to the checked address, with one deadline for all of it, no redirects, and at most ``responseLimit`` bytes
/// of the answer read.
///
/// Each attempt has an `HTTPClient` of its own, whose `dnsOverride` pins the URL's name to the checked address: the
/// client cannot resolve the name again, and still sends it as `Host` and TLS server name and verifies the
/// certificate against it. A connection is therefore never reused for another app or another answer of DNS.
struct WebhookSender: Sendable {
    let timeout: Duration
    /// Which destinations are allowed (private ones only when the deployment says so).
    let policy: WebhookURLPolicy
    let resolver: any WebhookResolver
    let logger: Logger
    /// How much of a receiver's answer is read (and then dropped: nothing of it is kept).
    static let responseLimit = 4096
    /// Identifies the sender to receivers.
    static let userAgent = "Shopkeeper-Webhooks/1"

    /// The client configuration of one attempt: redirects are never followed (a 3xx is a failed attempt),
    /// connecting or waiting for bytes takes at most `timeout`, and the URL's name goes to `destination`'s address.
    static func configuration(timeout: Duration, destination: WebhookDestination) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let amount = TimeAmount.milliseconds(timeout.milliseconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount)
        configuration.decompression = .disabled
        configuration.dnsOverride = destination.dnsOverride
        configuration.proxy = nil
        return configuration
    }

    /// Sends `delivery` to `url`, signed with `secret` at `now`.
    func send(_ delivery: ClaimedDelivery, url: String, secret: String, now: Date = Date()) async
        -> WebhookAttemptResult
    {
        let deadline = ContinuousClock.now + timeout
        let destination: WebhookDestination
        do throws(WebhookFailure) {
            destination = try await withDeadline(deadline) { () async throws(WebhookFailure) -> WebhookDestination in
                try await WebhookDestination.resolve(url, policy: policy, resolver: resolver)
            }
        } catch {
            return .failed(error)
        }
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: Self.configuration(timeout: timeout, destination: destination))
        let result = await post(delivery, to: destination, secret: secret, now: now, deadline: deadline, with: client)
        do {
            try await client.shutdown()
        } catch {
            logger.debug("webhook client shutdown failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        return result
    }

    private func post(
        _ delivery: ClaimedDelivery, to destination: WebhookDestination, secret: String, now: Date,
        deadline: ContinuousClock.Instant, with client: HTTPClient
    ) async -> WebhookAttemptResult {
        let body = Array(delivery.body.utf8)
        var request = HTTPClientRequest(url: destination.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: delivery.format.contentType)
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Shopkeeper-Event-ID", value: delivery.eventID.uuidString.lowercased())
        request.headers.add(name: "Shopkeeper-Event-Type", value: delivery.type)
        request.headers.add(name: "Shopkeeper-Delivery-Attempt", value: String(delivery.attempt))
        request.headers.add(
            name: "Shopkeeper-Signature", value: WebhookSignature.header(secret: secret, timestamp: now, body: body))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let remaining = max(deadline - ContinuousClock.now, .milliseconds(1))
            let response = try await client.execute(request, deadline: .now() + .milliseconds(remaining.milliseconds))
            try await Self.drain(response.body, limit: Self.responseLimit)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .delivered(status: status) }
            return .failed(.httpStatus(status))
        } catch {
            let failure = WebhookFailure(classifying: error)
            // The operator may see the detail; the tenant sees only the coarse reason.
            logger.debug(
                "webhook request failed",
                metadata: [
                    "event_id": "\(delivery.eventID.uuidString.lowercased())", "reason": "\(failure.reason)",
                    "error": "\(String(reflecting: error))",
                ])
            return .failed(failure)
        }
    }

    /// Reads at most `limit` bytes of a body; the rest is not waited for (the connection is then closed).
    private static func drain(_ body: HTTPClientResponse.Body, limit: Int) async throws {
        var read = 0
        for try await chunk in body {
            read += chunk.readableBytes
            if read >= limit { break }
        }
    }

    /// Runs `work`, or throws ``WebhookFailure/timeout`` once `deadline` has passed without waiting for it to end: a
    /// system resolver blocked in `getaddrinfo` cannot be cancelled, and must not hold the attempt past its timeout.
    private func withDeadline<T: Sendable>(
        _ deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async throws(WebhookFailure) -> T
    ) async throws(WebhookFailure) -> T {
        let waiter = NIOLockedValueBox<CheckedContinuation<Result<T, WebhookFailure>, Never>?>(nil)
        let finish: @Sendable (Result<T, WebhookFailure>) -> Void = { result in
            waiter.withLockedValue { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        let outcome = await withCheckedContinuation { continuation in
            waiter.withLockedValue { $0 = continuation }
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                finish(.failure(.timeout))
            }
            Task {
                do throws(WebhookFailure) { finish(.success(try await work())) } catch { finish(.failure(error)) }
                timer.cancel()
            }
        }
        return try outcome.get()
    }
}
