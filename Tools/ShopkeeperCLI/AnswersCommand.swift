import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper answers`: the keys that sign an app's answers (`X-Shopkeeper-Signature`), with the app's secret key.
struct AnswersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answers",
        abstract: "Show, create, activate or retire the keys that sign the app's answers.",
        discussion: """
            Signed answers let the app tell Shopkeeper's answers from forged ones: put the active key's public_key in \
            ShopkeeperConfiguration's answerKeys. Rotate without a gap: create-key (published, not signing), ship \
            the app trusting both, activate the new key, retire the old one.
            """,
        subcommands: [Show.self, CreateKey.self, Activate.self, Retire.self]
    )

    static let path = "/v1/admin/answer-signing"

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whether answers are signed, and the public keys an app may trust (the active one first).")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.secretClient()
            try printJSON(try await client.send(.GET, AnswersCommand.path, as: AnswerSigningKeys.self))
        }
    }

    struct CreateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an Ed25519 key; the app's first signs at once, a later one only once activated.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.secretClient()
            try printJSON(try await client.send(.POST, AnswersCommand.path + "/keys", as: AnswerSigningKeyInfo.self))
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign with this key from now on.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The key id (ask_...).") var keyID: String

        func run() async throws {
            let client = try connection.secretClient()
            try printJSON(
                try await client.send(
                    .POST, AnswersCommand.path + "/keys/\(keyID)/activate", as: AnswerSigningKeyInfo.self))
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Retire a key (the active one only when it is the last: signing stops).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The key id (ask_...).") var keyID: String

        func run() async throws {
            let client = try connection.secretClient()
            try printJSON(
                try await client.send(.DELETE, AnswersCommand.path + "/keys/\(keyID)", as: AnswerSigningKeyInfo.self))
        }
    }
}
