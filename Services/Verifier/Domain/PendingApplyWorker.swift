import Logging
import ServiceLifecycle
import ShopkeeperClients
import ShopkeeperHTTP
import ShopkeeperModels

/// Applies recorded facts whose apply did not finish (the entitlements service was down, the verifier stopped
/// between recording and applying), so that a purchase the store charged for is granted even when the app never
/// retries. Several replicas share the work: each claim leases its facts (`FOR UPDATE SKIP LOCKED`).
struct PendingApplyWorker: Service {
    let transactions: any TransactionRepository
    let projections: FactProjections
    /// How often to look, and the first backoff of a fact whose apply failed again.
    let interval: Duration
    /// Opens once the schema is migrated.
    let startup: StartupGate
    let logger: Logger
    var batchSize = 100
    /// Consumes the Play consumables a background apply granted, for apps that ask for it.
    var consumer: GoogleConsumer? = nil

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await startup.wait()
            while !Task.isCancelled {
                let claimed = await runOnce()
                if claimed < batchSize {
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Claims and applies one batch; returns how many facts were claimed.
    @discardableResult
    func runOnce() async -> Int {
        let claimed: [PendingFact]
        do {
            _ = try await transactions.sweepApplied()
            claimed = try await transactions.claimPending(limit: batchSize, base: interval)
        } catch {
            logger.error("could not claim pending facts", metadata: ["error": "\(String(reflecting: error))"])
            return 0
        }
        // One apply call per presenter, so each customer's facts commit together.
        let groups = Dictionary(grouping: claimed) { fact in
            PresenterKey(
                appID: fact.appID, appUserID: fact.asPresenter ? fact.appUserID : nil,
                deviceID: fact.asPresenter ? fact.deviceID : nil)
        }
        for (key, facts) in groups {
            let recorded = facts.map(\.transaction)
            let request = ApplyRequest(
                appUserID: key.appUserID, deviceID: key.deviceID, source: .retry, transactions: recorded)
            do {
                _ = try await projections.apply(request, appID: key.appID, requestID: nil)
                await transactions.markApplied(recorded, appID: key.appID, for: key.appUserID)
                await consumer?.consumeNow(recorded, appID: key.appID)
                logger.info(
                    "applied pending facts", metadata: ["app_id": "\(key.appID)", "count": "\(recorded.count)"])
            } catch let verdict as RemoteProblem {
                await transactions.markRefused(recorded, appID: key.appID, for: key.appUserID, code: verdict.code)
                logger.notice(
                    "pending facts refused by entitlements",
                    metadata: ["app_id": "\(key.appID)", "code": "\(verdict.code)"])
            } catch {
                logger.warning(
                    "pending facts not applied yet; retrying later",
                    metadata: ["app_id": "\(key.appID)", "error": "\(error)"])
            }
        }
        return claimed.count
    }

    private struct PresenterKey: Hashable {
        var appID: String
        var appUserID: String?
        var deviceID: String?
    }
}
