import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperModels

/// Tells the content service how each download the gateway sent from the volume ended (``DownloadFinishReport``),
/// so its download log has the bytes and completion, as for the downloads it streams itself.
///
/// Reports are queued and sent in the background, retried while the service is unreachable (a repeated report
/// changes nothing there). As a lifecycle service it stops after the server has drained, once every queued report
/// has been sent or given up on; a report that cannot be sent leaves the entry unfinished in the log, and is logged.
final class DownloadReporter: Service, Sendable {
    struct Pending: Sendable {
        var report: DownloadFinishReport
        var downloadID: Int64
        var route: UpstreamRoute
        var requestID: String
    }

    private let httpClient: HTTPClient
    private let signature: InternalSignature
    private let timeout: Duration
    private let retryDelays: [Duration]
    private let logger: Logger
    private let queue: AsyncStream<Pending>
    private let continuation: AsyncStream<Pending>.Continuation

    init(
        httpClient: HTTPClient, signature: InternalSignature, timeout: Duration, logger: Logger,
        retryDelays: [Duration] = [.milliseconds(200), .seconds(1), .seconds(3)]
    ) {
        self.httpClient = httpClient
        self.signature = signature
        self.timeout = timeout
        self.retryDelays = retryDelays
        self.logger = logger
        (queue, continuation) = AsyncStream.makeStream(of: Pending.self)
    }

    /// Queues the report of `downloadID` for `route`'s service. Callable from any thread.
    func report(_ report: DownloadFinishReport, downloadID: Int64, route: UpstreamRoute, requestID: String) {
        continuation.yield(Pending(report: report, downloadID: downloadID, route: route, requestID: requestID))
    }

    func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await pending in queue {
                    group.addTask { await self.send(pending) }
                }
            }
        } onGracefulShutdown: {
            // Whatever is queued is still sent; nothing new comes once the server has drained.
            self.continuation.finish()
        }
    }

    private func send(_ pending: Pending) async {
        let client = InternalClient(
            service: pending.route.service, baseURL: pending.route.baseURL, httpClient: httpClient,
            signature: signature, timeout: timeout, maxResponseBytes: 64 << 10)
        var logger = logger
        logger[metadataKey: "request_id"] = .string(pending.requestID)
        logger[metadataKey: "download_id"] = .stringConvertible(pending.downloadID)
        for delay in [Duration.zero] + retryDelays {
            do {
                if delay > .zero { try await Task.sleep(for: delay) }
                _ = try await client.post(
                    DownloadFinishReport.path(downloadID: pending.downloadID), body: pending.report, caller: nil,
                    requestID: pending.requestID, as: DownloadFinishAnswer.self)
                return
            } catch let problem as RemoteProblem {
                // A verdict (an unknown download): sending it again would get the same answer.
                logger.error("download report refused", metadata: ["problem": "\(problem.problem.code)"])
                return
            } catch is CancellationError {
                break
            } catch {
                logger.warning("download report failed, retrying", metadata: ["error": "\(error)"])
            }
        }
        logger.error(
            "download report lost: the download stays unfinished in the content log",
            metadata: ["bytes_sent": "\(pending.report.bytesSent)", "completed": "\(pending.report.completed)"])
    }
}
