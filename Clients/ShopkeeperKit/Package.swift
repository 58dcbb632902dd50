// swift-tools-version: 6.0
// ShopkeeperKit: the client an app adds to use Shopkeeper. Its own manifest, apart from the server's, so that an
// app resolves nothing but this package: no swift-nio, Hummingbird or PostgresNIO. Foundation only (URLSession;
// FoundationNetworking on Linux), StoreKit where it exists. See docs/architecture.md, "ShopkeeperKit".
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "ShopkeeperKit",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "ShopkeeperKit", targets: ["ShopkeeperKit"])
    ],
    targets: [
        .target(name: "ShopkeeperKit", swiftSettings: strict),
        // The README's Linux example: buys at the sandbox store and prints the customer's entitlements.
        .executableTarget(
            name: "ShopkeeperSandboxDemo", dependencies: ["ShopkeeperKit"], swiftSettings: strict),
        // Unit tests: models against docs/openapi.yaml's examples, pure rules, the persistent queues.
        .testTarget(name: "ShopkeeperKitTests", dependencies: ["ShopkeeperKit"], swiftSettings: strict),
        // Against a running local stack (scripts/run) through the sandbox store: see Scripts/test-with-stack.
        .testTarget(name: "ShopkeeperKitStackTests", dependencies: ["ShopkeeperKit"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
