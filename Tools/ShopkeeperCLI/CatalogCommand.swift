import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper catalog`.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Import or export an app's whole catalog as one JSON document, or sync it with a store (secret key).",
        subcommands: [Import.self, Export.self, Sync.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the catalog with a document.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Path of the catalog JSON document.") var file: String
        @Flag(help: "Validate and show the changes without writing them.") var dryRun = false

        func run() async throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let document = try JSONDecoder().decode(CatalogDocument.self, from: data)
            let result = try await connection.secretClient().send(
                .PUT, "/v1/admin/catalog" + (dryRun ? "?dry_run=true" : ""), body: document,
                as: CatalogImportResult.self
            )
            try printJSON(result)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the catalog document.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try printJSON(try await connection.secretClient().send(.GET, "/v1/admin/catalog", as: CatalogDocument.self))
        }
    }

    /// `shopkeeper catalog sync --store apple|google [--dry-run] [--accept ID|KIND ...]`.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Compare the catalog with a store's (App Store Connect, Google Play) and apply the accepted differences.",
            discussion: """
                Prints every difference (new products, review states, prices per territory, products deleted at the
                store) with its id. Without --dry-run, applies those named by --accept: a change id from the
                listing (price:garden.extra:USA, or price:garden.extra:US for Play) or a whole kind (review_state, price, new_product,
                deleted_at_store). A product with purchases is never deleted: it is marked removed instead.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The store to read: apple or google.") var store = "apple"
        @Flag(help: "Show the differences without applying anything.") var dryRun = false
        @Option(name: .customLong("accept"), help: "A change id or kind to apply (repeatable).") var accept: [String] =
            []

        func run() async throws {
            let result = try await connection.secretClient().send(
                .POST, "/v1/admin/catalog/sync", body: CatalogSyncRequest(store: store, dryRun: dryRun, accept: accept),
                as: CatalogSyncResult.self)
            try printJSON(result)
        }
    }
}
