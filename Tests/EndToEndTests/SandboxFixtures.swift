import Foundation

extension ServiceProcess {
    /// `shopkeeper-sandbox-store`, keeping its state (and its root certificate, `root.pem`) in `state`, with
    /// `environment` added; ready when it returns.
    static func sandboxStore(state: URL, environment: [String: String] = [:]) async throws -> ServiceProcess {
        let sandbox = try ServiceProcess(
            "shopkeeper-sandbox-store",
            environment: environment.merging(["SHOPKEEPER_SANDBOX_STATE_DIR": state.path]) { _, new in new })
        try await sandbox.waitUntilReady()
        return sandbox
    }

    /// The verifier's settings that make this sandbox store (started on `state`) its App Store, Google Play and Stripe: the
    /// sandbox's root certificate trusted, every store URL pointing at it.
    func storeEnvironment(state: URL) -> [String: String] {
        [
            "SHOPKEEPER_APPLE_ROOT_CERTIFICATES": state.appendingPathComponent("root.pem").path,
            "SHOPKEEPER_APPLE_PRODUCTION_RECEIPT_URL": baseURL + "/apple/production/verifyReceipt",
            "SHOPKEEPER_APPLE_SANDBOX_RECEIPT_URL": baseURL + "/apple/sandbox/verifyReceipt",
            "SHOPKEEPER_APPLE_PRODUCTION_API_URL": baseURL + "/apple/production",
            "SHOPKEEPER_APPLE_SANDBOX_API_URL": baseURL + "/apple/sandbox",
            "SHOPKEEPER_GOOGLE_API_URL": baseURL + "/google",
            "SHOPKEEPER_STRIPE_API_URL": baseURL + "/stripe",
            "SHOPKEEPER_APP_STORE_CONNECT_URL": baseURL + "/appstoreconnect",
        ]
    }
}

/// The demo shop as the CLI seeds it through the gateway (`seed demo`) and connects to the sandbox store
/// (`sandbox connect`): its keys, and the environment the CLI needs for further commands.
struct SeededDemoShop {
    let appID: String
    let publicKey: String
    let secretKey: String
    /// `SHOPKEEPER_GATEWAY_URL`, `SHOPKEEPER_SECRET_KEY` and `SHOPKEEPER_SANDBOX_URL`.
    let cliEnvironment: [String: String]
    /// What `sandbox connect` printed.
    let connectOutput: String

    /// Seeds the shop (its keys written to `envFile`, whose folder is created) and connects it to `sandboxURL`;
    /// throws with the CLI's output when either step fails.
    static func seed(
        gatewayURL: String, operatorKey: String, sandboxURL: String, envFile: URL, content: Bool = false
    ) throws -> SeededDemoShop {
        try FileManager.default.createDirectory(
            at: envFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        let seed = try runCLI(
            ["seed", "demo"] + (content ? [] : ["--no-content"])
                + ["--gateway-url", gatewayURL, "--operator-key", operatorKey, "--env-file", envFile.path])
        guard seed.status == 0 else { throw ServiceProcess.Failure("seed demo: \(seed.output)") }
        let keys = try DemoShopEndToEndTests.parseEnv(envFile)
        let secretKey = keys["SHOPKEEPER_SECRET_KEY"] ?? ""
        let cliEnvironment = [
            "SHOPKEEPER_GATEWAY_URL": gatewayURL, "SHOPKEEPER_SECRET_KEY": secretKey,
            "SHOPKEEPER_SANDBOX_URL": sandboxURL,
        ]
        let connect = try runCLI(["sandbox", "connect"], environment: cliEnvironment)
        guard connect.status == 0 else { throw ServiceProcess.Failure("sandbox connect: \(connect.output)") }
        return SeededDemoShop(
            appID: keys["SHOPKEEPER_APP_ID"] ?? "", publicKey: keys["SHOPKEEPER_PUBLIC_KEY"] ?? "",
            secretKey: secretKey, cliEnvironment: cliEnvironment,
            connectOutput: connect.output)
    }
}
