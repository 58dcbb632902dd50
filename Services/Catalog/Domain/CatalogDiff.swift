import ShopkeeperModels

/// What replacing an app's catalog with a document changes.
struct CatalogDiff {
    var created: [Product] = []
    var updated: [Product] = []
    var unchanged: [String] = []
    var deleted: [String] = []

    init(current: [Product], wanted: [Product]) {
        let existing = Dictionary(current.map { ($0.productID, $0) }, uniquingKeysWith: { first, _ in first })
        let wantedIDs = Set(wanted.map(\.productID))
        for product in wanted {
            switch existing[product.productID] {
            case nil: created.append(product)
            case let old? where old == product: unchanged.append(product.productID)
            default: updated.append(product)
            }
        }
        deleted = current.map(\.productID).filter { !wantedIDs.contains($0) }.sorted()
    }

    /// Products to write.
    var changedProducts: [Product] { created + updated }

    func result(revision: Int64) -> CatalogImportResult {
        CatalogImportResult(
            created: created.map(\.productID).sorted(),
            updated: updated.map(\.productID).sorted(),
            deleted: deleted,
            unchanged: unchanged.sorted(),
            revision: revision
        )
    }
}
