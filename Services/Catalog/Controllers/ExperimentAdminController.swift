import Hummingbird
import ShopkeeperHTTP
import ShopkeeperModels

/// Experiments of the caller's own app (secret key), under `/v1/admin/experiments`: create and edit drafts, list,
/// read, start and stop. Every write takes `?dry_run=true` (checked as the write would be, SQL's rules included,
/// and nothing changes). A running experiment's variants and weights are fixed; a stopped one stays stopped.
struct ExperimentAdminController {
    let repository: ExperimentPostgresRepository
    let cache: CatalogCache
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { _, context in
            let caller = try context.requireSecretCaller()
            return try JSONBody.response(ExperimentList(experiments: try await repository.list(appID: caller.appID)))
        }
        routes.post { request, context in
            let caller = try context.requireSecretCaller()
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let experiment = try await validated(request, appID: caller.appID)
            let created = try await repository.create(appID: caller.appID, experiment: experiment, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(created, status: .created)
        }
        routes.get(":experiment_id") { _, context in
            let caller = try context.requireSecretCaller()
            let experimentID = try context.parameters.require("experiment_id")
            return try JSONBody.response(
                try await repository.experiment(appID: caller.appID, experimentID: experimentID))
        }
        routes.put(":experiment_id") { request, context in
            let caller = try context.requireSecretCaller()
            let experimentID = try context.parameters.require("experiment_id")
            let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
            let experiment = try await validated(request, appID: caller.appID)
            guard experiment.experimentID == experimentID else {
                throw RequestError.invalid(
                    "/experiment_id", "must equal the experiment id in the path ('\(experimentID)')")
            }
            let updated = try await repository.update(appID: caller.appID, experiment: experiment, dryRun: dryRun)
            cache.invalidate(appID: caller.appID)
            return try JSONBody.response(updated)
        }
        for (action, target) in [("start", ExperimentState.running), ("stop", .stopped)] {
            routes.post(":experiment_id/\(action)") { request, context in
                let caller = try context.requireSecretCaller()
                let experimentID = try context.parameters.require("experiment_id")
                let dryRun = try QueryFlag.value("dry_run", in: request.uri.queryParameters)
                let moved = try await repository.move(
                    appID: caller.appID, experimentID: experimentID, to: target, dryRun: dryRun)
                cache.invalidate(appID: caller.appID)
                return try JSONBody.response(moved)
            }
        }
        return routes
    }

    /// The request's experiment, checked against the app's offerings and rules as the database has them now.
    private func validated(_ request: Request, appID: String) async throws -> Experiment {
        let experiment = try await JSONBody.decode(Experiment.self, from: request, limit: maxBodyBytes)
        cache.invalidate(appID: appID)
        let snapshot = try await cache.snapshot(appID: appID)
        let problems = ExperimentValidator.problems(of: experiment, snapshot: snapshot)
        guard problems.isEmpty else { throw CatalogError.invalidExperiment(problems) }
        return experiment
    }
}
