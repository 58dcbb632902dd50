import ArgumentParser
import Foundation
import ShopkeeperCore

/// `shopkeeper sandbox`.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Use the sandbox store (shopkeeper-sandbox-store) instead of a real one.",
        subcommands: [Buy.self, Connect.self]
    )

    struct Buy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Buy a product at the sandbox store and print the proof an app would send (JSON)."
        )
        enum Store: String, ExpressibleByArgument, CaseIterable {
            case apple, google
        }

        @Option(help: "The store product id.") var product: String
        @Option(help: "The app user id (Apple: its appAccountToken; Google: the obfuscated account id).") var user:
            String
        @Option(help: "apple or google.") var store: Store = .apple
        @Option(help: "Bundle id (Apple) or package name (Google).") var bundleID: String = DemoShop.bundleID
        @Option(
            help: """
                Apple: Consumable, Non-Consumable, Auto-Renewable Subscription, Non-Renewing Subscription; \
                Google: product or subscription.
                """
        ) var type: String?
        @Option(help: "Sandbox or Production (Apple).") var environment: String = "Sandbox"
        @Option(help: "Subscription length, ISO 8601.") var period: String = "P1M"
        @Option(help: "How many (consumables).") var quantity: Int = 1
        @Option(help: "Sandbox store URL (env SHOPKEEPER_SANDBOX_URL).")
        var sandboxURL: String =
            ProcessInfo.processInfo.environment["SHOPKEEPER_SANDBOX_URL"] ?? "http://127.0.0.1:8090"

        func run() async throws {
            switch store {
            case .apple:
                let kind = type ?? "Non-Consumable"
                let token = AppAccountToken.uuid(forAppUserID: user).uuidString.lowercased()
                let body = SandboxAppleBuy(
                    bundleID: bundleID, productID: product, type: kind, quantity: quantity, environment: environment,
                    appAccountToken: token, period: kind == "Auto-Renewable Subscription" ? period : nil)
                try printProof(
                    try await post("/sandbox/apple/transactions", body),
                    adding: ["store": "apple", "app_user_id": user, "app_account_token": token, "product_id": product])
            case .google:
                let kind = type ?? "product"
                let body = SandboxGoogleBuy(
                    packageName: bundleID, productID: product, type: kind, quantity: quantity,
                    obfuscatedAccountID: user, period: kind == "subscription" ? period : nil)
                try printProof(
                    try await post("/sandbox/google/purchases", body),
                    adding: ["store": "google", "app_user_id": user, "obfuscated_account_id": user])
            }
        }

        private func post(_ path: String, _ body: some Encodable) async throws -> Data {
            try await GatewayAPIClient.execute(
                .POST, url: sandboxURL.trimmingSuffix("/") + path, bearer: nil, json: try JSONEncoder().encode(body))
        }

        /// Prints the sandbox's answer (the proof) with `extra` fields, as indented JSON.
        private func printProof(_ data: Data, adding extra: [String: String]) throws {
            var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            object.merge(extra) { existing, _ in existing }
            let pretty = try JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: pretty, as: UTF8.self))
        }
    }
}

/// `POST /sandbox/apple/transactions`.
struct SandboxAppleBuy: Encodable {
    var bundleID: String
    var productID: String
    var type: String
    var quantity: Int
    var environment: String
    var appAccountToken: String
    var period: String?

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case productID = "product_id"
        case type, quantity, environment, period
        case appAccountToken = "app_account_token"
    }
}

/// `POST /sandbox/google/purchases`.
struct SandboxGoogleBuy: Encodable {
    var packageName: String
    var productID: String
    var type: String
    var quantity: Int
    var obfuscatedAccountID: String
    var period: String?

    enum CodingKeys: String, CodingKey {
        case packageName = "package_name"
        case productID = "product_id"
        case type, quantity, period
        case obfuscatedAccountID = "obfuscated_account_id"
    }
}
