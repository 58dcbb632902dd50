import ArgumentParser
import Foundation

/// `shopkeeper stores`: the app's store credentials as the verifier shows them (`GET /v1/admin/stores`, secret key),
/// and the Apple credentials' development setting `accept_local_testing`.
struct StoresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "Show the app's store credentials (without secrets); switch the acceptance of Xcode test data.",
        subcommands: [Show.self, LocalTesting.self]
    )

    static let path = "/v1/admin/stores"

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The store credentials, secrets left out.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            let client = try connection.secretClient()
            print(String(decoding: try await client.send(.GET, StoresCommand.path, json: nil), as: UTF8.self))
        }
    }

    /// Sets `accept_local_testing` on the Apple credentials: the other fields are sent back as shown, the secrets
    /// (shared secret, API keys) are left out, which keeps them.
    struct LocalTesting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "local-testing",
            abstract: "Accept (on) or refuse (off) Xcode and LocalTesting data unverified, as Apple's library does.",
            discussion: """
                Only for an app in development mode (its Apple environments do not name production); Shopkeeper \
                refuses it otherwise. Off, such data must be signed with the app's storekit_test_certificate.
                """
        )
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "on or off.") var state: State

        enum State: String, ExpressibleByArgument {
            case on, off
        }

        /// The fields of the shown Apple credentials that `PUT /v1/admin/stores/apple` takes back as they are.
        static let keptFields = [
            "bundle_id", "app_apple_id", "environments", "consumption_answers", "storekit_test_certificate",
            "variant_bundle_ids",
        ]

        func run() async throws {
            let client = try connection.secretClient()
            let shown = try JSONSerialization.jsonObject(
                with: try await client.send(.GET, StoresCommand.path, json: nil))
            guard let apple = (shown as? [String: Any])?["apple"] as? [String: Any] else {
                throw ValidationError("The app has no Apple credentials (PUT /v1/admin/stores/apple first).")
            }
            var body = apple.filter { Self.keptFields.contains($0.key) && !($0.value is NSNull) }
            body["accept_local_testing"] = state == .on
            let answer = try await client.send(
                .PUT, StoresCommand.path + "/apple", json: try JSONSerialization.data(withJSONObject: body))
            print(String(decoding: answer, as: UTF8.self))
        }
    }
}
