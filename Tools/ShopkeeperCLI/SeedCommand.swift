import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper seed`.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Seed data for local development.",
        subcommands: [Demo.self, Sales.self]
    )

    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the demo app and its keys, import the demo shop, write the keys to an env file."
        )
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Where to write SHOPKEEPER_GATEWAY_URL and the demo keys.") var envFile: String =
            ".shopkeeper/local.env"
        @Flag(help: "Publish no content packs (for a gateway without the content service).") var noContent = false

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
            let offerings = try await secretAPI.send(
                .PUT, "/v1/admin/offerings", body: DemoShop.offerings, as: OfferingsImportResult.self)
            let experiment = try await secretAPI.send(
                .POST, "/v1/admin/experiments", body: DemoShop.experiment, as: Experiment.self)
            _ = try await secretAPI.send(
                .POST, "/v1/admin/experiments/\(experiment.experimentID)/start", as: Experiment.self)
            if !noContent { try await pushSeedPacks(client: secretAPI) }
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
                "Demo app \(app.appID) (\(app.name)) with \(result.created.count) products, "
                    + "\(offerings.offerings.created.count) offerings, the running experiment \(experiment.experimentID) "
                    + "and "
                    + "\(noContent ? 0 : DemoShop.seedPacks.count) content packs; keys written to \(envFile)")
        }

        /// Publishes version 1.0.0 of each seed pack (written to a temporary folder and pushed like
        /// `shopkeeper content push`).
        private func pushSeedPacks(client: GatewayAPIClient) async throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "shopkeeper-demo-packs-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            for pack in DemoShop.seedPacks {
                let folder = root.appendingPathComponent(pack.product)
                for file in DemoShop.packFiles(flower: pack.flower, color: pack.color) {
                    let url = folder.appendingPathComponent(file.path)
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(file.contents.utf8).write(to: url)
                }
                _ = try await PackFolder.push(
                    folder, product: pack.product, version: "1.0.0", minAppVersion: nil, client: client
                ) { _ in }
            }
        }
    }
}
