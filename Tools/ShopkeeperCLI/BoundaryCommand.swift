import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper boundary`: an app's customer boundary (open or signed) and its customer token secrets.
///
/// With `--app` the operator API is used (operator key); without it the app's own admin API (its secret key).
struct BoundaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boundary",
        abstract: "Show or switch how public-key callers prove which customer they act for (open or signed).",
        subcommands: [
            Show.self, SetMode.self, CreateSecret.self, RevokeSecret.self, RegisterKey.self, RevokeKey.self,
            Aliases.self,
        ]
    )

    /// Which API to call, and the path of the app's customer boundary there.
    struct Target: ParsableArguments {
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "The app id, to use the operator API (otherwise the app's secret key is used).")
        var app: String?

        func client() throws -> (GatewayAPIClient, String) {
            if let app { return (try connection.operatorClient(), "/operator/v1/apps/\(app)/customer-boundary") }
            return (try connection.secretClient(), "/v1/admin/customer-boundary")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the mode and the live secrets' ids.")
        @OptionGroup var target: Target

        func run() async throws {
            let (client, path) = try target.client()
            try printJSON(try await client.send(.GET, path, as: CustomerBoundary.self))
        }
    }

    struct SetMode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Switch the mode; 'signed' needs a secret first (create-secret).")
        @OptionGroup var target: Target
        @Argument(help: "open or signed.") var mode: String

        func run() async throws {
            guard let mode = CustomerBoundaryMode(rawValue: mode) else {
                throw ValidationError("the mode must be open or signed")
            }
            let (client, path) = try target.client()
            try printJSON(
                try await client.send(
                    .PUT, path, body: SetCustomerBoundaryRequest(mode: mode), as: CustomerBoundary.self))
        }
    }

    struct CreateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a customer token secret; it is shown once: put it on your own server.")
        @OptionGroup var target: Target

        func run() async throws {
            let (client, path) = try target.client()
            try printJSON(try await client.send(.POST, path + "/secrets", as: CreatedCustomerTokenSecret.self))
        }
    }

    struct RevokeSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a secret: tokens signed with it stop working (rotate: create, deploy, then revoke).")
        @OptionGroup var target: Target
        @Argument(help: "The secret id (ctk_...).") var secretID: String

        func run() async throws {
            let (client, path) = try target.client()
            try printJSON(
                try await client.send(.DELETE, path + "/secrets/\(secretID)", as: CustomerTokenSecretInfo.self))
        }
    }

    struct RegisterKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a P-256 public key (PEM): your server signs ES256 tokens with its private key.")
        @OptionGroup var target: Target
        @Option(help: "A PEM file holding the public key (-----BEGIN PUBLIC KEY-----).") var pemFile: String

        func run() async throws {
            let pem = try String(contentsOfFile: pemFile, encoding: .utf8)
            let (client, path) = try target.client()
            try printJSON(
                try await client.send(
                    .POST, path + "/public-keys", body: RegisterCustomerTokenPublicKeyRequest(publicKey: pem),
                    as: CustomerTokenPublicKeyInfo.self))
        }
    }

    struct RevokeKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a registered public key: tokens signed with its private key stop working.")
        @OptionGroup var target: Target
        @Argument(help: "The key id (cpk_...).") var keyID: String

        func run() async throws {
            let (client, path) = try target.client()
            try printJSON(
                try await client.send(
                    .DELETE, path + "/public-keys/\(keyID)", as: CustomerTokenPublicKeyInfo.self))
        }
    }

    struct Aliases: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Review the ids the public key linked, suspended when the app switched to signed.",
            discussion: """
                Without --confirm, lists the suspended ids (--review says the same). Each --confirm links one id \
                again to the customer it addressed, as your server would with the secret key. Uses the app's \
                secret key.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "List the suspended ids (the default).") var review = false
        @Option(name: .customLong("confirm"), help: "A suspended id to link again (repeat for several).")
        var confirmed: [String] = []

        func run() async throws {
            let client = try connection.secretClient()
            for id in confirmed {
                let body = try JSONEncoder().encode(["app_user_id": id])
                let answer = try await client.send(.POST, "/v1/admin/aliases/suspended/confirm", json: body)
                print(String(decoding: answer, as: UTF8.self))
            }
            if confirmed.isEmpty || review {
                try printJSON(try await client.send(.GET, "/v1/admin/aliases/suspended", as: SuspendedAliasList.self))
            }
        }
    }
}
