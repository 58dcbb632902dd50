// The README's Linux example: buys a product at the sandbox store through ShopkeeperKit, as an app would, and
// prints the customer's entitlements. Run it next to `scripts/run`:
//
//   set -a; . .shopkeeper/local.env; set +a
//   swift run --package-path Clients/ShopkeeperKit ShopkeeperSandboxDemo extra_garden
//
// Arguments: `[product id] [app user id]`: the product to buy (default `extra_garden`), and the customer to log in as
// first. `--no-purchase <app user id>` buys nothing and only shows what that customer owns: after buying in the demo
// web shop, the app sees the same entitlement for the same app user id.
import Foundation
import ShopkeeperKit

let environment = ProcessInfo.processInfo.environment
guard let gateway = environment["SHOPKEEPER_GATEWAY_URL"].flatMap(URL.init(string:)),
    let publicKey = environment["SHOPKEEPER_PUBLIC_KEY"],
    let sandbox = environment["SHOPKEEPER_SANDBOX_URL"].flatMap(URL.init(string:))
else {
    print("Set SHOPKEEPER_GATEWAY_URL, SHOPKEEPER_PUBLIC_KEY and SHOPKEEPER_SANDBOX_URL (. .shopkeeper/local.env)")
    exit(64)
}
let arguments = Array(CommandLine.arguments.dropFirst())
/// The product to buy; `nil` with `--no-purchase`.
let productID: String? = arguments.first == "--no-purchase" ? nil : arguments.first ?? "extra_garden"
if productID == nil && arguments.count < 2 {
    print("--no-purchase needs the app user id whose entitlements to show")
    exit(64)
}
// Where this "device" keeps its state: the same folder each run, so kept purchases survive a crash.
let folder = URL(fileURLWithPath: environment["SHOPKEEPER_KIT_DEMO_DIR"] ?? ".shopkeeper/kit-demo", isDirectory: true)

let store = SandboxDeviceStore(
    sandboxURL: sandbox, bundleID: environment["SHOPKEEPER_DEMO_BUNDLE_ID"] ?? "com.shopkeeper.demo.garden",
    deviceDirectory: folder.appendingPathComponent("store"))
let shopkeeper = try Shopkeeper(
    configuration: ShopkeeperConfiguration(
        baseURL: gateway, apiKey: publicKey, platform: .appStore, appVersion: "1.0",
        storageDirectory: folder.appendingPathComponent("shopkeeper")),
    store: store)
await shopkeeper.start()
if arguments.count > 1 { _ = try await shopkeeper.logIn(arguments[1]) }

print("customer: \(await shopkeeper.appUserID)")
if let productID {
    switch try await shopkeeper.purchase(productID: productID) {
    case .delivered(let response):
        print("bought \(productID): \(response.outcomes.map(\.outcome.rawValue).joined(separator: ", "))")
    case .refused(let code):
        print("Shopkeeper refused the purchase: \(code)")
    case .pending(let error):
        print("kept, to be sent again: \(error)")
    }
}
let info = try await shopkeeper.customerInfo()
print("entitlements:")
for (id, entitlement) in info.entitlements.sorted(by: { $0.key < $1.key }) {
    let state = entitlement.active ? "active" : "inactive"
    let until = entitlement.expiresAt.map { " until \($0)" } ?? ""
    print("  \(id): \(state) (\(entitlement.source), \(entitlement.store?.rawValue ?? "-"))\(until)")
}
for (product, units) in info.consumableBalances.sorted(by: { $0.key < $1.key }) {
    print("  \(product): \(units) left")
}
await shopkeeper.stop()
