import ArgumentParser
import Foundation
import ShopkeeperCore

extension SeedCommand {
    /// `shopkeeper seed sales`: some weeks of the demo shop's sales, bought at the sandbox store with past purchase
    /// dates and presented to the gateway as an app would, so that the console's overview has figures to show.
    struct Sales: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Give the demo shop some weeks of sales (needs the sandbox store and shopkeeper sandbox connect).",
            discussion: """
                Plans purchases for a few customers over the last weeks (non-consumables, consumables partly spent, a \
                non-renewing service, monthly subscriptions with a free trial week, renewals and lapses; App Store and \
                Google Play), makes each at the sandbox store with its past purchase date (App Store Production, \
                Google Play non-test purchases), presents it to POST /v1/purchases with the public key (the real \
                verifier checks every proof), spends some consumables, and refunds one App Store purchase (applied \
                through the refund history when the store's notification did not arrive). Then as many customers of \
                a 3.0 build in Germany read the offerings, so the running demo experiment exposes them, and some buy \
                what their variant offers first (dated now), so its results have figures. The same seed gives the \
                same customers and purchases, dated back from now.
                """
        )

        private static let environment = ProcessInfo.processInfo.environment

        @Option(help: "Gateway base URL (env SHOPKEEPER_GATEWAY_URL).")
        var gatewayURL: String = environment["SHOPKEEPER_GATEWAY_URL"] ?? "http://127.0.0.1:8080"
        @Option(help: "The app's public key, to present purchases (env SHOPKEEPER_PUBLIC_KEY).")
        var publicKey: String?
        @Option(help: "The app's secret key, to apply the refund (env SHOPKEEPER_SECRET_KEY).")
        var secretKey: String?
        @Option(help: "Sandbox store URL (env SHOPKEEPER_SANDBOX_URL).")
        var sandboxURL: String = environment["SHOPKEEPER_SANDBOX_URL"] ?? "http://127.0.0.1:8090"
        @Option(help: "The app's bundle id and Google Play package (env SHOPKEEPER_DEMO_BUNDLE_ID).")
        var bundleID: String = environment["SHOPKEEPER_DEMO_BUNDLE_ID"] ?? DemoShop.bundleID
        @Option(help: "How many customers buy.") var customers: Int = 16
        @Option(help: "How many weeks back the sales go.") var weeks: Int = 8
        @Option(help: "The plan's seed.") var seed: UInt64 = 19

        func validate() throws {
            guard (1...200).contains(customers) else { throw ValidationError("--customers must be 1 to 200") }
            guard (1...52).contains(weeks) else { throw ValidationError("--weeks must be 1 to 52") }
        }

        func run() async throws {
            guard let publicKey = publicKey ?? Self.environment["SHOPKEEPER_PUBLIC_KEY"], !publicKey.isEmpty else {
                throw ValidationError("Give --public-key or set SHOPKEEPER_PUBLIC_KEY.")
            }
            guard let secretKey = secretKey ?? Self.environment["SHOPKEEPER_SECRET_KEY"], !secretKey.isEmpty else {
                throw ValidationError("Give --secret-key or set SHOPKEEPER_SECRET_KEY.")
            }
            let plan = DemoSalesPlan.make(customers: customers, days: weeks * 7, seed: seed, now: Date())
            let buyer = DemoSalesBuyer(
                gateway: GatewayAPIClient(baseURL: gatewayURL, bearer: publicKey),
                admin: GatewayAPIClient(baseURL: gatewayURL, bearer: secretKey),
                sandboxURL: sandboxURL.trimmingSuffix("/"), bundleID: bundleID)
            let started = ContinuousClock.now
            do {
                let made = try await buyer.buy(plan)
                let shoppers = DemoExperimentShoppers.make(count: customers, seed: seed)
                let shopped = try await shoppers.shop(with: buyer)
                let seconds = (ContinuousClock.now - started).components.seconds
                let sales =
                    "Demo sales: \(plan.customers.count) customers, \(made.purchases) purchases, \(made.renewals) "
                    + "subscription periods after the first, \(made.consumed) units spent, \(made.refunds) "
                    + "refund over the last \(weeks) weeks"
                let experiment =
                    "the experiment \(DemoShop.experiment.experimentID) exposed \(shopped.exposed) customers, "
                    + "who made \(shopped.purchases) purchases and started \(shopped.trials) trials"
                print("\(sales); \(experiment) (\(seconds) s)")
            } catch let failure as GatewayAPIClient.Failure {
                FileHandle.standardError.write(
                    Data("shopkeeper seed sales: HTTP \(failure.status)\n\(failure.body)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
