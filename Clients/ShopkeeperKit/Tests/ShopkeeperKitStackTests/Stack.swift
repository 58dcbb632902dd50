import Foundation
import Testing

@testable import ShopkeeperKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The local stack these tests run against: the real services, PostgreSQL and the sandbox store, started by
/// `scripts/run` (Scripts/test-with-stack starts one on free ports and names its `local.env` in
/// `SHOPKEEPER_KIT_STACK_ENV`). Without it the tests are skipped, unless `SHOPKEEPER_KIT_REQUIRE_STACK=1` (as the
/// test command sets) makes that a failure.
struct Stack: Sendable {
    let gatewayURL: URL
    let sandboxURL: URL
    let publicKey: String
    let secretKey: String
    let operatorKey: String?
    let bundleID: String

    static let environment: [String: String]? = {
        guard let path = ProcessInfo.processInfo.environment["SHOPKEEPER_KIT_STACK_ENV"],
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }()

    static var available: Bool { current != nil }

    static let current: Stack? = {
        guard let values = environment, let gateway = values["SHOPKEEPER_GATEWAY_URL"].flatMap(URL.init(string:)),
            let sandbox = values["SHOPKEEPER_SANDBOX_URL"].flatMap(URL.init(string:)),
            let publicKey = values["SHOPKEEPER_PUBLIC_KEY"], let secretKey = values["SHOPKEEPER_SECRET_KEY"]
        else { return nil }
        return Stack(
            gatewayURL: gateway, sandboxURL: sandbox, publicKey: publicKey, secretKey: secretKey,
            operatorKey: values["SHOPKEEPER_OPERATOR_KEY"],
            bundleID: values["SHOPKEEPER_DEMO_BUNDLE_ID"] ?? "com.shopkeeper.demo.garden")
    }()

    static func require() throws -> Stack {
        try #require(current, "no stack: run Clients/ShopkeeperKit/Scripts/test-with-stack")
    }

    /// A new device of a store account: its own folders in a fresh temporary directory: `shopkeeper` (the app's
    /// files, which deleting the app deletes), `keychain` (the id store, standing in for the Keychain, which
    /// survives it) and `store` (the sandbox store's unfinished transactions, StoreKit's on a phone).
    struct Device {
        let shopkeeper: Shopkeeper
        let store: SandboxDeviceStore
        let directory: URL

        /// Deletes the app's files, as deleting the app does; the Keychain and the store account stay.
        func deleteApp() throws {
            try FileManager.default.removeItem(at: directory.appendingPathComponent("shopkeeper"))
        }
    }

    /// A Shopkeeper on a new (or, given `directory`, the same) device. `account` shares the store account's
    /// purchases between devices. The store account buys in `storefront` and got the app's `edition` (by default
    /// the app's own, first at version 2.0, as the device's app is: nothing grandfathered).
    func device(
        directory: URL? = nil, account: URL? = nil, platform: StorePlatform = .appStore,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.2, maxDelay: 2), store: (any DeviceStore)? = nil,
        storefront: String = "USA", edition: SandboxAppEdition? = SandboxAppEdition(originalApplicationVersion: "2.0"),
        variant: String? = nil, canMakePayments: Bool = true, answerKeys: [String: String] = [:],
        session: URLSession? = nil
    ) throws -> Device {
        let folder =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "kit-\(UUID().uuidString)", isDirectory: true)
        let sandbox = SandboxDeviceStore(
            sandboxURL: sandboxURL, bundleID: bundleID, platform: platform,
            deviceDirectory: folder.appendingPathComponent("store"), accountDirectory: account, storefront: storefront,
            appEdition: edition, canMakePayments: canMakePayments)
        let configuration = ShopkeeperConfiguration(
            baseURL: gatewayURL, apiKey: publicKey, platform: platform, appVersion: "2.0", variant: variant,
            storageDirectory: folder.appendingPathComponent("shopkeeper"),
            idStore: FileIDStore(directory: folder.appendingPathComponent("keychain")), retryPolicy: retry,
            answerKeys: answerKeys)
        return Device(
            shopkeeper: try Shopkeeper(configuration: configuration, store: store ?? sandbox, session: session),
            store: sandbox, directory: folder)
    }

    // MARK: Admin and sandbox controls (what a developer or a test does beside the app)

    @discardableResult
    func call(
        _ method: String, _ url: URL, bearer: String? = nil, json: Any? = nil, body: Data? = nil
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let body {
            request.httpBody = body
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    func admin(_ method: String, _ path: String, json: Any? = nil, body: Data? = nil) async throws -> Data {
        let url = gatewayURL.appendingPathComponent(path)
        let answer = try await call(method, url, bearer: secretKey, json: json, body: body)
        try #require(
            (200...299).contains(answer.status),
            "\(method) \(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        return answer.body
    }

    func sandbox(_ method: String, _ path: String, json: Any? = nil) async throws {
        let answer = try await call(method, sandboxURL.appendingPathComponent(path), json: json)
        try #require(
            (200...299).contains(answer.status),
            "sandbox \(method) \(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
    }

    /// A new product of the demo app, visible to development builds (the sandbox's), sold on both stores.
    func createProduct(
        type: ProductType, duration: String? = nil, trialDuration: String? = nil, group: String? = nil
    ) async throws -> (productID: String, storeProductID: String) {
        let id = "kit_\(type.rawValue)_\(UUID().uuidString.prefix(8).lowercased())"
        var product: [String: Any] = [
            "product_id": id, "type": type.rawValue, "review_state": "approved", "cleared_for_sale": true,
            "store_product_ids": ["app_store": "\(bundleID).\(id)", "play_store": id], "entitlements": [id],
            "default_locale": "en", "localizations": ["en": ["name": id]],
        ]
        if let duration { product["duration"] = duration }
        if let trialDuration { product["trial_duration"] = trialDuration }
        if let group { product["group"] = group }
        if type == .consumable { product["consumable_quantity"] = 5 }
        _ = try await admin("PUT", "v1/admin/products/\(id)", json: product)
        return (id, "\(bundleID).\(id)")
    }

    /// Publishes a content pack version of the product with these files.
    func publishContent(productID: String, files: [String: Data]) async throws {
        let created = try await admin("POST", "v1/admin/content/\(productID)/uploads", json: ["version": "1.0.0"])
        let upload = try #require(
            (try JSONSerialization.jsonObject(with: created) as? [String: Any])?["upload_id"] as? String)
        for (path, data) in files {
            var components = URLComponents(
                url: gatewayURL.appendingPathComponent("v1/admin/content/\(productID)/uploads/\(upload)/files"),
                resolvingAgainstBaseURL: false)
            components?.queryItems = [URLQueryItem(name: "path", value: path)]
            let url = try #require(components?.url)
            let answer = try await call("PUT", url, bearer: secretKey, body: data)
            try #require(answer.status == 200, "upload of \(path): \(answer.status)")
        }
        _ = try await admin("POST", "v1/admin/content/\(productID)/uploads/\(upload)/publish")
    }
}

/// Waits for a condition (never for a fixed time): polls until it holds or `seconds` pass.
func eventually(_ seconds: Double = 30, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: 100_000_000)
    }
    return try await condition()
}
