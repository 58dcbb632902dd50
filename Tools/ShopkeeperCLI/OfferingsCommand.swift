import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper offerings`: the app's offerings and targeting rules as one JSON document, as `catalog` does products.
struct OfferingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offerings",
        abstract: "Import or export an app's offerings and targeting rules as one JSON document (secret key).",
        subcommands: [Import.self, Export.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the offerings and rules with a document.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Path of the offerings JSON document.") var file: String
        @Flag(help: "Check the document as the write would (nothing is written) and show the changes.") var dryRun =
            false

        func run() async throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let document = try JSONDecoder().decode(OfferingsDocument.self, from: data)
            let result = try await connection.secretClient().send(
                .PUT, "/v1/admin/offerings" + (dryRun ? "?dry_run=true" : ""), body: document,
                as: OfferingsImportResult.self
            )
            try printJSON(result)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the offerings document.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try printJSON(
                try await connection.secretClient().send(.GET, "/v1/admin/offerings", as: OfferingsDocument.self))
        }
    }
}
