import Hummingbird
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels

/// `GET /v1/offerings`: which offering to show one customer on one build, and every offering as that build sees it
/// (public or secret key).
struct OfferingController {
    let cache: CatalogCache
    let facts: CustomerFactsPostgresReader
    let exposures: ExposureRecorder
    /// How long the gateway may keep an answer that does not depend on the customer (as the catalog's).
    let gatewayCacheTTL: Duration

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.get { request, context in try await self.offerings(request: request, context: context) }
        routes.head { request, context in try await self.offerings(request: request, context: context) }
        return routes
    }

    private func offerings(request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let (query, appUserID) = try Self.query(from: request.uri.queryParameters)
        // In `signed` mode the gateway forwards the customer the token proved; the query must name that one.
        try context.requireCustomer(appUserID)
        let snapshot = try await cache.snapshot(appID: caller.appID)
        // Facts are read at most once, for the rules and the experiments' audiences alike.
        var known: CustomerFacts?
        func customerFacts() async throws -> CustomerFacts {
            if let known { return known }
            let read = try await facts.facts(appID: caller.appID, appUserID: appUserID)
            known = read
            return read
        }
        let chosen = try await OfferingTargeting.choose(rules: snapshot.rules, query: query, facts: customerFacts)
        var current = chosen.rule?.offeringID ?? snapshot.offerings.first(where: \.isDefault)?.offeringID
        var experiment: ExperimentPick?
        if !snapshot.experiments.isEmpty {
            let matched = try await OfferingTargeting.experiment(
                running: snapshot.experiments, rules: snapshot.rules, query: query, facts: customerFacts)
            if let running = matched.experiment {
                let variant = try await assign(running, appID: caller.appID, appUserID: appUserID, request: request)
                current = variant.offeringID
                experiment = ExperimentPick(id: running.experimentID, variant: variant.key)
            }
        }
        let rendered = try cache.renderedOfferings(
            snapshot: snapshot, appID: caller.appID, query: query.catalog,
            pick: .init(current: current, ruleID: chosen.rule?.ruleID, experiment: experiment))
        // An answer that read the customer's facts changes with them (a purchase), and one an experiment chose
        // depends on who asks: the gateway must not keep either. Any other answer is the same for every customer
        // asking this query (the rules and audiences decided without them): the gateway keeps one for all.
        let personal = known != nil || experiment != nil
        return rendered.response(
            to: request, gatewayCacheTTL: personal ? nil : gatewayCacheTTL, customerNeutral: !personal)
    }

    /// The variant of `experiment` the customer `appUserID` names is assigned to (by the customer's canonical id, so
    /// every alias gets the same one), with the customer's first exposure recorded when this is a `GET`.
    private func assign(_ experiment: Experiment, appID: String, appUserID: String, request: Request) async throws
        -> ExperimentVariant
    {
        let customerKey = try await facts.canonicalID(appID: appID, appUserID: appUserID)
        let index = ExperimentAssignment.variant(
            app: appID, experiment: experiment.experimentID, customer: customerKey,
            weights: experiment.variants.map(\.weight))
        let variant = experiment.variants[index]
        if request.method == .get {
            try await exposures.record(
                Exposure(
                    appID: appID, experimentID: experiment.experimentID, customerKey: customerKey,
                    variant: variant.key, appUserID: appUserID))
        }
        return variant
    }

    /// Reads and checks the query: the catalog's parameters, `app_user_id` and `country`; every problem at once.
    static func query(from parameters: Parameters) throws(RequestError) -> (OfferingQuery, String) {
        var problems: [FieldProblem] = []
        var catalog: CatalogQuery?
        do {
            catalog = try CatalogController.query(from: parameters)
        } catch {
            problems += error.fieldProblems
        }
        let appUserID = AppUserID.validated(parameters.get("app_user_id"), pointer: "?app_user_id", problems: &problems)
        // StoreKit names a storefront's country in alpha-3 (`DEU`), Play in alpha-2 (`DE`): either is kept as alpha-2.
        // Three letters that name no country stay as they are and match no rule, as two such letters do.
        let requested = parameters.get("country").flatMap { $0.isEmpty ? nil : $0 }
        let country = requested.flatMap(CountryCode.requested)
        if requested != nil, country == nil {
            problems.append(
                FieldProblem(
                    pointer: "?country",
                    detail: "must be an ISO 3166-1 country code: alpha-2 such as DE, or alpha-3 such as DEU"))
        }
        guard problems.isEmpty, let catalog, let appUserID else { throw .invalidQuery(problems) }
        return (OfferingQuery(catalog: catalog, country: country), appUserID)
    }
}
