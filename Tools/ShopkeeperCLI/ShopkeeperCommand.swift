import ArgumentParser
import Foundation
import ShopkeeperCore
import ShopkeeperModels

/// `shopkeeper`: the developer and operator tool.
@main
struct ShopkeeperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shopkeeper",
        abstract: "Operate a Shopkeeper installation: apps, keys, customer boundary, catalogs, the demo shop.",
        version: ShopkeeperVersion.current,
        subcommands: [
            AppsCommand.self, KeysCommand.self, CatalogCommand.self, OfferingsCommand.self, ExperimentsCommand.self,
            SeedCommand.self,
            SandboxCommand.self,
            ContentCommand.self, BoundaryCommand.self, AnswersCommand.self, CustomersCommand.self, ReportCommand.self,
            ExchangeRatesCommand.self, StoresCommand.self,
        ]
    )
}
