import ShopkeeperModels

/// What replacing a list of items (an app's products, offerings or rules) with a wanted list changes, by id.
struct CatalogDiff<Item: Equatable> {
    var created: [Item] = []
    var updated: [Item] = []
    var unchanged: [String] = []
    var deleted: [String] = []
    let id: (Item) -> String

    init(current: [Item], wanted: [Item], id: @escaping (Item) -> String) {
        self.id = id
        let existing = Dictionary(current.map { (id($0), $0) }, uniquingKeysWith: { first, _ in first })
        let wantedIDs = Set(wanted.map(id))
        for item in wanted {
            switch existing[id(item)] {
            case nil: created.append(item)
            case let old? where old == item: unchanged.append(id(item))
            default: updated.append(item)
            }
        }
        deleted = current.map(id).filter { !wantedIDs.contains($0) }.sorted()
    }

    /// Items to write.
    var changed: [Item] { created + updated }

    func result(revision: Int64) -> CatalogImportResult {
        CatalogImportResult(
            created: created.map(id).sorted(),
            updated: updated.map(id).sorted(),
            deleted: deleted,
            unchanged: unchanged.sorted(),
            revision: revision
        )
    }
}
