import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper catalog`.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Import or export an app's whole catalog as one JSON document (secret key).",
        subcommands: [Import.self, Export.self]
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
}
