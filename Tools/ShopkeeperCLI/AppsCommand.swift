import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper apps`.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create and list apps (operator key).",
        subcommands: [Create.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app's name.") var name: String

        func run() async throws {
            let app = try await connection.operatorClient().send(
                .POST, "/operator/v1/apps", body: CreateAppRequest(name: name), as: AppInfo.self
            )
            try printJSON(app)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try printJSON(try await connection.operatorClient().send(.GET, "/operator/v1/apps", as: AppList.self))
        }
    }
}
