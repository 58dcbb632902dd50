/// A whole catalog as one JSON document, for import and export (so the catalog can live in git).
package struct CatalogDocument: Codable, Hashable, Sendable {
    package var products: [Product]

    package init(products: [Product]) {
        self.products = products
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case products
    }

    package init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        products = try container.decode([Product].self, forKey: .products)
    }
}

/// What a catalog import changed.
package struct CatalogImportResult: Codable, Hashable, Sendable {
    package var created: [String]
    package var updated: [String]
    package var deleted: [String]
    package var unchanged: [String]
    /// The catalog's revision after the import.
    package var revision: Int64

    package init(created: [String], updated: [String], deleted: [String], unchanged: [String], revision: Int64) {
        self.created = created
        self.updated = updated
        self.deleted = deleted
        self.unchanged = unchanged
        self.revision = revision
    }
}
