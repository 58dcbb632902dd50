import Logging
import ServiceLifecycle
import ShopkeeperCore

/// Runs one kind of background work (``PolledWork``) on every replica: claims a batch, processes it, and pauses
/// when there was nothing more to claim; the one loop every background job of the services shares.
///
/// - **Pace**: after a round that claimed a full batch the next comes at once; otherwise after ``interval``, or
///   sooner when woken (``wakeUp``).
/// - **Errors**: a claim, a process or the preparation that throws is logged and counted, and the poller backs off
///   (``backoff``, doubling with jitter) before it tries again; a successful round resets it.
/// - **Replicas**: the work's claim leases what it returns (`FOR UPDATE SKIP LOCKED`, a lease column), so pollers on
///   several replicas (or several ``lanes`` of one) never process one item at once.
/// - **Shutdown**: at graceful shutdown nothing more is claimed, and claimed items not processed yet are handed back
///   (``PolledWork/release(_:)``) for another replica to take at once. The item being processed is cancelled
///   (``Shutdown/cancelInFlight``, the default: the work hands it back or lets its lease run out) or finished
///   (``Shutdown/finishInFlight``).
/// - **Metrics**: ``PollerMetrics``, under the poller's ``name``.
package struct LeasedPoller<Work: PolledWork>: Service {
    /// What graceful shutdown does to the item being processed.
    package enum Shutdown: Sendable {
        /// Cancels it (its work sees the cancellation).
        case cancelInFlight
        /// Lets it finish (each has a timeout of its own).
        case finishInFlight
    }

    /// When the first round comes.
    package enum FirstRound: Sendable {
        /// As soon as the service is ready.
        case atStart
        /// One ``interval`` after the service is ready (a process that starts and stops again soon does no work).
        case afterInterval
    }

    /// The poller's name in logs and metrics (`notification_worker`).
    package let name: String
    package let work: Work
    /// The pause after a round that did not claim a full batch.
    package var interval: Duration
    /// The pauses after failed rounds.
    package var backoff: PollerBackoff
    /// Rounds run at once, each claiming its own batch.
    package var lanes: Int
    /// When set, items are processed this many at once, each claimed as a slot frees (``runSlots(_:)``), instead of
    /// in ``lanes`` of batches.
    package var slots: Int?
    package var shutdown: Shutdown
    package var firstRound: FirstRound
    /// Cuts an idle pause short.
    package let wakeUp: PollerWakeUp
    /// Opens once the schema is migrated; nothing is claimed before.
    package let startup: StartupGate?
    package let logger: Logger
    let metrics: PollerMetrics

    /// A poller of `work` named `name`; by default it backs off from `interval` up to a minute (or `interval`, when
    /// longer) after errors.
    package init(
        name: String, work: Work, interval: Duration, backoff: PollerBackoff? = nil, lanes: Int = 1,
        slots: Int? = nil, shutdown: Shutdown = .cancelInFlight, firstRound: FirstRound = .atStart,
        wakeUp: PollerWakeUp = PollerWakeUp(),
        startup: StartupGate?, logger: Logger
    ) {
        self.name = name
        self.work = work
        self.interval = interval
        self.backoff = backoff ?? PollerBackoff(first: interval, limit: max(interval, .seconds(60)))
        self.lanes = max(lanes, 1)
        self.slots = slots.map { max($0, 1) }
        self.shutdown = shutdown
        self.firstRound = firstRound
        self.wakeUp = wakeUp
        self.startup = startup
        var logger = logger
        logger[metadataKey: "poller"] = .string(name)
        self.logger = logger
        self.metrics = PollerMetrics(poller: name)
    }

    package func run() async throws {
        switch shutdown {
        case .cancelInFlight: await cancelWhenGracefulShutdown { await runLanes() }
        case .finishInFlight: await runLanes()
        }
    }

    /// How a round went, which decides the pause after it.
    private enum Outcome {
        /// A full batch: more may be due.
        case more
        /// Less than a full batch.
        case idle
        /// Something threw.
        case failed
    }

    var isStopping: Bool {
        Task.isCancelled || Task.isShuttingDownGracefully
    }

    private func runLanes() async {
        await cancelWhenGracefulShutdown { await startup?.wait() }
        guard !isStopping, await prepared() else { return }
        if let slots { return await runSlots(slots) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<lanes {
                group.addTask { await runLane() }
            }
        }
    }

    /// Runs ``PolledWork/prepare()`` until it succeeds; `false` when the service stops first.
    private func prepared() async -> Bool {
        var failures = 0
        while !isStopping {
            do {
                try await work.prepare()
                return true
            } catch {
                guard !isStopping else { return false }
                failures += 1
                metrics.error(at: .prepare)
                logger.warning(
                    "background work not prepared; retrying", metadata: ["error": "\(String(reflecting: error))"])
                await pause(for: backoff.delay(afterFailures: failures), unlessWokenAfter: nil)
            }
        }
        return false
    }

    private func runLane() async {
        if firstRound == .afterInterval {
            await pause(for: interval, unlessWokenAfter: wakeUp.generation)
        }
        var failures = 0
        while !isStopping {
            // Read before the round: a wake-up during the round skips the pause after it.
            let seen = wakeUp.generation
            let outcome = await round()
            guard !isStopping else { return }
            switch outcome {
            case .more:
                failures = 0
            case .idle:
                failures = 0
                await pause(for: interval, unlessWokenAfter: seen)
            case .failed:
                failures += 1
                await pause(for: backoff.delay(afterFailures: failures), unlessWokenAfter: nil)
            }
        }
    }

    /// Claims one batch and processes it.
    private func round() async -> Outcome {
        let start = ContinuousClock.now
        let batch: ClaimedBatch<Work.Item>
        do {
            // A claim that committed is always seen (and so handed back at shutdown), never lost to a cancellation.
            batch = try await uncancelled { [work] in try await work.claim() }
        } catch {
            metrics.error(at: .claim)
            metrics.round(claimed: 0, failed: true, duration: ContinuousClock.now - start)
            logger.error("could not claim work", metadata: ["error": "\(String(reflecting: error))"])
            return .failed
        }
        var failed = false
        for (index, item) in batch.items.enumerated() {
            guard !isStopping else {
                await handBack(Array(batch.items[index...]))
                break
            }
            if !(await processed(item)) { failed = true }
        }
        metrics.round(claimed: batch.count, failed: failed, duration: ContinuousClock.now - start)
        if failed { return .failed }
        return batch.isFull ? .more : .idle
    }

    /// Processes one item; `false` when it threw (it is then handed back).
    func processed(_ item: Work.Item) async -> Bool {
        do {
            try await work.process(item)
            return true
        } catch {
            if !isStopping {
                metrics.error(at: .process)
                logger.warning(
                    "background work failed; handed back, backing off",
                    metadata: ["error": "\(String(reflecting: error))"])
            }
            await handBack([item])
            return false
        }
    }

    /// Hands `items` back to the work, even when the task is cancelled.
    private func handBack(_ items: [Work.Item]) async {
        guard !items.isEmpty else { return }
        do {
            try await uncancelled { [work] in try await work.release(items) }
        } catch {
            metrics.error(at: .release)
            logger.warning(
                "could not hand claimed work back; its lease runs out",
                metadata: ["count": "\(items.count)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Waits `duration`, or less when woken after `generation` (never when `nil`) or the service stops.
    func pause(for duration: Duration, unlessWokenAfter generation: Int?) async {
        guard duration > .zero else { return }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: duration) }
                if let generation {
                    group.addTask { await wakeUp.wait(after: generation) }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
