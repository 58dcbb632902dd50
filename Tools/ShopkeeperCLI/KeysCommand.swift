import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper keys`.
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
