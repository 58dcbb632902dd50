import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper`: the developer and operator tool.
@main
struct ShopkeeperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shopkeeper",
        abstract: "Operate a Shopkeeper installation: apps, keys, catalogs, the demo shop.",
        subcommands: [AppsCommand.self, KeysCommand.self, CatalogCommand.self, SeedCommand.self]
    )
}

/// Where the gateway is and which keys to use; each falls back to its environment variable.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Gateway base URL (env SHOPKEEPER_GATEWAY_URL).")
    var gatewayURL: String = ProcessInfo.processInfo.environment["SHOPKEEPER_GATEWAY_URL"] ?? "http://127.0.0.1:8080"

    @Option(help: "Operator key (env SHOPKEEPER_OPERATOR_KEY).")
    var operatorKey: String?

    @Option(help: "Secret key of the app (env SHOPKEEPER_SECRET_KEY).")
    var secretKey: String?

    func operatorClient() throws -> GatewayAPIClient {
        guard let key = operatorKey ?? ProcessInfo.processInfo.environment["SHOPKEEPER_OPERATOR_KEY"] else {
            throw ValidationError("Give --operator-key or set SHOPKEEPER_OPERATOR_KEY.")
        }
        return GatewayAPIClient(baseURL: gatewayURL, bearer: key)
    }

    func secretClient() throws -> GatewayAPIClient {
        guard let key = secretKey ?? ProcessInfo.processInfo.environment["SHOPKEEPER_SECRET_KEY"] else {
            throw ValidationError("Give --secret-key or set SHOPKEEPER_SECRET_KEY.")
        }
        return GatewayAPIClient(baseURL: gatewayURL, bearer: key)
    }
}

/// Prints a value as indented JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

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

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list and revoke an app's API keys (operator key).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key; it is shown once.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app id.") var app: String
        @Option(help: "public or secret.") var kind: String
        @Option(help: "A note for humans.") var label: String?

        func run() async throws {
            guard let kind = APIKeyKind(rawValue: kind) else {
                throw ValidationError("--kind must be public or secret")
            }
            let key = try await connection.operatorClient().send(
                .POST, "/operator/v1/apps/\(app)/keys", body: CreateKeyRequest(kind: kind, label: label),
                as: CreatedAPIKey.self
            )
            try printJSON(key)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's keys (never the keys themselves).")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app id.") var app: String

        func run() async throws {
            try printJSON(
                try await connection.operatorClient().send(.GET, "/operator/v1/apps/\(app)/keys", as: APIKeyList.self))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key.")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app id.") var app: String
        @Option(help: "The key id (key_...).") var key: String

        func run() async throws {
            try printJSON(
                try await connection.operatorClient().send(
                    .DELETE, "/operator/v1/apps/\(app)/keys/\(key)", as: APIKeyInfo.self)
            )
        }
    }
}

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
