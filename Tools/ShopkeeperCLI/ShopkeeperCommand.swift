import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper`: the developer and operator tool.
@main
struct ShopkeeperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shopkeeper",
        abstract: "Operate a Shopkeeper installation: apps, keys, customer boundary, catalogs, the demo shop.",
        subcommands: [
            AppsCommand.self, KeysCommand.self, CatalogCommand.self, SeedCommand.self, SandboxCommand.self,
            ContentCommand.self, BoundaryCommand.self, CustomersCommand.self, ReportCommand.self,
        ]
    )
}
