import ShopkeeperModels

/// An app's offerings and targeting rules. Every write bumps the catalog's revision (``CatalogWrites``), so the
/// offerings are read with the products, in one ``CatalogSnapshot``; `dryRun` runs a write whole and rolls it back.
protocol OfferingRepository: Sendable {
    /// Adds an offering; throws ``CatalogError/offeringExists`` when the id is taken.
    func create(appID: String, offering: Offering, dryRun: Bool) async throws -> Int64
    /// Creates or replaces an offering; returns whether it was created, and the new revision.
    func upsert(appID: String, offering: Offering, dryRun: Bool) async throws -> (created: Bool, revision: Int64)
    /// Removes an offering; throws ``CatalogError/offeringNotFound`` when absent.
    func delete(appID: String, offeringID: String, dryRun: Bool) async throws -> Int64
    /// Makes the app's rules exactly `rules`, in this order.
    func replaceRules(appID: String, rules: [TargetingRule], dryRun: Bool) async throws -> CatalogImportResult
    /// Makes the app's offerings and rules exactly `document`'s, in one transaction.
    func replaceAll(appID: String, document: OfferingsDocument, dryRun: Bool) async throws -> OfferingsImportResult
}
