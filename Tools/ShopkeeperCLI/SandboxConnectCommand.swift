import ArgumentParser
import Foundation
import NIOHTTP1
import ShopkeeperModels

extension SandboxCommand {
    /// `shopkeeper sandbox connect`: makes store credentials at the sandbox store and gives them to the app.
    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect an app to the sandbox store instead of the real stores.",
            discussion: """
                Makes an App Store Server API key, a verifyReceipt shared secret and a Google Play service account \
                at the sandbox store, then stores them as the app's credentials through the gateway \
                (PUT /v1/admin/stores/apple and /v1/admin/stores/google, secret key). Secrets are never printed. \
                For the demo app it also registers the demo's App Store products with their prices in the USA and \
                DEU storefronts at the sandbox store (PUT /sandbox/apple/products, which replaces the sandbox \
                store's product list), so apps see real prices, and the demo's Stripe prices in US dollars (PUT \
                /sandbox/stripe/prices, which deactivates prices not listed) that its catalog's store_product_ids \
                .stripe name, for the demo web shop. Running it again changes nothing.
                """
        )

        private static let environment = ProcessInfo.processInfo.environment

        @Option(help: "Gateway base URL (env SHOPKEEPER_GATEWAY_URL).")
        var gatewayURL: String = environment["SHOPKEEPER_GATEWAY_URL"] ?? "http://127.0.0.1:8080"
        @Option(help: "Secret key of the app (env SHOPKEEPER_SECRET_KEY).")
        var secretKey: String?
        @Option(help: "Sandbox store URL (env SHOPKEEPER_SANDBOX_URL).")
        var sandboxURL: String = environment["SHOPKEEPER_SANDBOX_URL"] ?? "http://127.0.0.1:8090"
        @Option(help: "The app's bundle id (env SHOPKEEPER_DEMO_BUNDLE_ID).")
        var bundleID: String = environment["SHOPKEEPER_DEMO_BUNDLE_ID"] ?? DemoShop.bundleID
        @Option(help: "The app's Google Play package name (default: the bundle id).")
        var packageName: String?
        @Option(
            help:
                "The app's Apple ID (App Store Connect's numeric app id; default: the one the sandbox store signs for the bundle id)."
        )
        var appAppleID: Int64?
        @Flag(
            inversion: .prefixedNo,
            help:
                "Register the demo's App Store products and Stripe prices at the sandbox store (default: for the demo app)."
        )
        var demoPrices: Bool?

        func validate() throws {
            guard (appAppleID ?? 1) > 0 else { throw ValidationError("--app-apple-id must be positive") }
        }

        func run() async throws {
            guard let key = secretKey ?? Self.environment["SHOPKEEPER_SECRET_KEY"], !key.isEmpty else {
                throw ValidationError("Give --secret-key or set SHOPKEEPER_SECRET_KEY.")
            }
            let gateway = GatewayAPIClient(baseURL: gatewayURL, bearer: key)
            let package = packageName ?? bundleID
            // The App Apple ID the sandbox store signs for this bundle id, unless told another.
            let appAppleID = self.appAppleID ?? AppleAppIdentity.appAppleId(bundleId: bundleID)
            let sandbox = sandboxURL.trimmingSuffix("/")

            let apiKey = try await step("make an App Store Server API key at \(sandbox)/sandbox/apple/api-keys") {
                try Self.object(
                    try await Self.sandboxPost(sandbox + "/sandbox/apple/api-keys", ["bundle_id": bundleID]))
            }
            let secret = try await step("make a shared secret at \(sandbox)/sandbox/apple/shared-secrets") {
                try Self.object(
                    try await Self.sandboxPost(sandbox + "/sandbox/apple/shared-secrets", ["bundle_id": bundleID]))
            }
            let serviceAccount = try await step(
                "make a Google service account at \(sandbox)/sandbox/google/service-accounts"
            ) {
                try Self.object(
                    try await Self.sandboxPost(
                        sandbox + "/sandbox/google/service-accounts", ["package_name": package]))
            }

            let keyBody: [String: Any] = [
                "issuer_id": apiKey["issuer_id"] ?? NSNull(), "key_id": apiKey["key_id"] ?? NSNull(),
                "private_key": apiKey["private_key"] ?? NSNull(),
            ]
            let apple: [String: Any] = [
                "bundle_id": bundleID, "app_apple_id": appAppleID, "environments": ["production", "sandbox"],
                // The demo's paid edition, sold as an app of its own: its app transactions show the `full` variant.
                "variant_bundle_ids": ["full": "\(bundleID).full"],
                "shared_secret": secret["shared_secret"] ?? NSNull(),
                "api_key": keyBody,
                // The sandbox's App Store Connect takes the same key (Apple's wants a team key): the catalog sync
                // (`shopkeeper catalog sync --store apple`) works in the local stack.
                "connect_api_key": keyBody,
            ]
            try await step("configure the App Store at PUT \(gatewayURL)/v1/admin/stores/apple") {
                _ = try await gateway.send(.PUT, "/v1/admin/stores/apple", json: try Self.json(apple))
            }
            Self.say(
                "apple:  bundle \(bundleID), app \(appAppleID), environments production and sandbox; "
                    + "shared secret and App Store Server API key \(apiKey["key_id"] ?? "?") "
                    + "(issuer \(apiKey["issuer_id"] ?? "?")) from the sandbox store")

            let google: [String: Any] = ["package_name": package, "service_account": serviceAccount]
            try await step("configure Google Play at PUT \(gatewayURL)/v1/admin/stores/google") {
                _ = try await gateway.send(.PUT, "/v1/admin/stores/google", json: try Self.json(google))
            }
            Self.say(
                "google: package \(package); service account \(serviceAccount["client_email"] ?? "?") "
                    + "from the sandbox store")

            if demoPrices ?? (bundleID == DemoShop.bundleID) {
                let products = DemoShop.sandboxAppStoreProducts
                try await step("register the demo's prices at PUT \(sandbox)/sandbox/apple/products") {
                    _ = try await GatewayAPIClient.execute(
                        .PUT, url: sandbox + "/sandbox/apple/products", bearer: nil,
                        json: try Self.json(["products": products]))
                }
                Self.say(
                    "prices: \(products.count) App Store products in the USA and DEU storefronts at the sandbox store")
                let prices = DemoShop.sandboxStripePrices
                try await step("register the demo's Stripe prices at PUT \(sandbox)/sandbox/stripe/prices") {
                    _ = try await GatewayAPIClient.execute(
                        .PUT, url: sandbox + "/sandbox/stripe/prices", bearer: nil,
                        json: try Self.json(["prices": prices]))
                }
                Self.say("prices: \(prices.count) Stripe prices (USD) at the sandbox store, for the demo web shop")
            }
        }

        /// Runs one step; a failure names the step, prints the answer's body and ends the command with status 1.
        private func step<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch let failure as GatewayAPIClient.Failure {
                Self.report("could not \(what): HTTP \(failure.status)\n\(failure.body)")
            } catch {
                Self.report("could not \(what): \(error)")
            }
            throw ExitCode.failure
        }

        /// Prints a line at once (not buffered), so it shows before a later step's failure on standard error.
        private static func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }

        private static func report(_ message: String) {
            FileHandle.standardError.write(Data("shopkeeper sandbox connect: \(message)\n".utf8))
        }

        private static func sandboxPost(_ url: String, _ body: [String: String]) async throws -> Data {
            try await GatewayAPIClient.execute(.POST, url: url, bearer: nil, json: try json(body))
        }

        private static func json(_ object: [String: Any]) throws -> Data {
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        }

        /// The answer as a JSON object.
        private static func object(_ data: Data) throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ValidationError("the sandbox store answered something other than a JSON object")
            }
            return object
        }
    }
}
