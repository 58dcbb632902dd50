import Logging
import ServiceLifecycle
import ShopkeeperHTTP
import ShopkeeperModels

/// Consumes granted Play consumables at Google (`purchases.products.consume`), for apps whose Google credentials
/// say `consume_consumables: true`, so that customers can buy them again.
///
/// Never before the grant: a consume is queued with its fact and done only once entitlements has applied the
/// transaction to a purchase of a consumable product (its units credited in that same database transaction). Safe to
/// repeat: a consume Google says it cannot do is checked with `purchases.products.get`, and a purchase Google reports
/// consumed counts as done. A consumed token presented again verifies as before and is applied as the same
/// transaction: its units are not credited twice.
struct GoogleConsumer: Sendable, RequestLogging {
    let consumptions: any GoogleConsumptionRepository
    let credentials: any CredentialsRepository
    let client: GooglePlayClient
    /// The first backoff of a consume that failed or waits for its grant; it doubles per attempt, up to an hour.
    let base: Duration
    var logger: Logger

    /// Consumes what is queued for these just-applied transactions of `appID`, now; anything left (not a consumable
    /// after all is settled, a failure is retried) stays with the background worker. Never throws: the grant stands
    /// whatever happens here.
    func consumeNow(_ transactions: [StoreTransaction], appID: String) async {
        let ids = transactions.filter { $0.store == .playStore && $0.type != .autoRenewable }.map(\.transactionID)
        guard !ids.isEmpty else { return }
        do {
            let claimed = try await consumptions.claim(transactionIDs: ids, appID: appID, base: base)
            await handle(claimed)
        } catch {
            logger.warning(
                "queued Play consumes not claimed; the background worker retries",
                metadata: ["app_id": "\(appID)", "error": "\(String(reflecting: error))"])
        }
    }

    /// Consumes, skips or leaves for later each claimed consume, and records what became of it.
    func handle(_ claimed: [PendingConsumption]) async {
        for consumption in claimed {
            let outcome: ConsumptionOutcome
            switch consumption.decision {
            case .wait:
                continue  // the claim pushed the next look back
            case .skip(let reason):
                outcome = .skipped(reason: reason)
            case .consume:
                outcome = await consume(consumption)
            }
            do {
                try await consumptions.settle(consumption, outcome: outcome)
                logger.info(
                    "Play consume settled",
                    metadata: [
                        "app_id": "\(consumption.appID)", "transaction_id": "\(consumption.transactionID)",
                        "outcome": "\(outcome)",
                    ])
            } catch {
                // The lease runs out and it is claimed again: consuming twice is harmless.
                logger.warning(
                    "could not record a Play consume", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Asks Google to consume one granted purchase.
    func consume(_ consumption: PendingConsumption) async -> ConsumptionOutcome {
        let app: GoogleCredentials
        do {
            guard let found = try await credentials.google(appID: consumption.appID) else {
                return .skipped(reason: "the app has no Google credentials")
            }
            app = found
        } catch {
            return .failed(reason: "credentials unreadable: \(error)")
        }
        guard app.consumesConsumables else { return .skipped(reason: "consume_consumables is off") }
        do {
            try await client.consume(consumption.storeProductID, token: consumption.purchaseToken, credentials: app)
            return .consumed
        } catch let error where error.isVerdict {
            // Google refuses to consume what it has consumed already (or refunded): ask what it says now.
            return await settledByGoogle(consumption, credentials: app, refusal: error)
        } catch {
            return .failed(reason: "\(error.code): \(error.detail)")
        }
    }

    /// What Google's purchase says about a consume it refused.
    private func settledByGoogle(
        _ consumption: PendingConsumption, credentials: GoogleCredentials, refusal: VerifierError
    ) async -> ConsumptionOutcome {
        do {
            let purchase = try await client.product(
                consumption.storeProductID, token: consumption.purchaseToken, credentials: credentials)
            if purchase.consumptionState == 1 { return .consumed }
            if purchase.purchaseState == 1 { return .skipped(reason: "canceled at Google") }
            return .failed(reason: "\(refusal.code): \(refusal.detail)")
        } catch {
            return .failed(reason: "\(error.code): \(error.detail)")
        }
    }
}

/// Runs ``GoogleConsumer`` in the background (a ``LeasedPoller``): consumes whose request did not consume them (the
/// verifier stopped between grant and consume, Google did not answer, the grant came later through the background
/// apply). Replicas share the work through the claim's lease.
struct GoogleConsumeWorker: PolledService {
    static let pollerName = "google_consume"
    let consumer: GoogleConsumer
    /// How often an idle worker looks.
    let interval: Duration
    let startup: StartupGate
    let logger: Logger
    var batchSize = 100

    /// Claims one batch of due consumes.
    func claim() async throws -> ClaimedBatch<PendingConsumption> {
        ClaimedBatch(
            try await consumer.consumptions.claimDue(limit: batchSize, base: consumer.base), limit: batchSize)
    }

    func process(_ consumption: PendingConsumption) async {
        await consumer.handle([consumption])
    }

    /// Hands consumes not tried yet back (shutting down): due again at once.
    func release(_ consumptions: [PendingConsumption]) async throws {
        try await consumer.consumptions.release(consumptions)
    }
}
