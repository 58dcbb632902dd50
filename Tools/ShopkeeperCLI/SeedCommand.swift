import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper seed`.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Seed data for local development.",
        subcommands: [Demo.self]
    )

    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the demo app and its keys, import the demo shop, write the keys to an env file."
        )
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Where to write SHOPKEEPER_GATEWAY_URL and the demo keys.") var envFile: String =
            ".shopkeeper/local.env"

        func run() async throws {
            let operatorAPI = try connection.operatorClient()
            let app = try await operatorAPI.send(
                .POST, "/operator/v1/apps", body: CreateAppRequest(name: DemoShop.appName), as: AppInfo.self
            )
            let publicKey = try await operatorAPI.send(
                .POST, "/operator/v1/apps/\(app.appID)/keys", body: CreateKeyRequest(kind: .public, label: "demo app"),
                as: CreatedAPIKey.self
            )
            let secretKey = try await operatorAPI.send(
                .POST, "/operator/v1/apps/\(app.appID)/keys",
                body: CreateKeyRequest(kind: .secret, label: "demo tools"),
                as: CreatedAPIKey.self
            )
            let secretAPI = GatewayAPIClient(baseURL: connection.gatewayURL, bearer: secretKey.key)
            let result = try await secretAPI.send(
                .PUT, "/v1/admin/catalog", body: DemoShop.catalog, as: CatalogImportResult.self)
            let lines = [
                "SHOPKEEPER_GATEWAY_URL=\(connection.gatewayURL)",
                "SHOPKEEPER_APP_ID=\(app.appID)",
                "SHOPKEEPER_PUBLIC_KEY=\(publicKey.key)",
                "SHOPKEEPER_SECRET_KEY=\(secretKey.key)",
            ]
            let url = URL(fileURLWithPath: envFile)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            print(
                "Demo app \(app.appID) (\(app.name)) with \(result.created.count) products; keys written to \(envFile)")
        }
    }
}
