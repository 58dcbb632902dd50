// swift-tools-version: 6.0
// ShopkeeperKit: the client an app adds to use Shopkeeper. Its own manifest, apart from the server's, so that an
// app resolves nothing but this package and Apple's swift-crypto: no swift-nio, Hummingbird or PostgresNIO.
// Foundation (URLSession; FoundationNetworking on Linux), StoreKit and CryptoKit where they exist; on other platforms
// swift-crypto's `Crypto`, CryptoKit's API (linked only there). See docs/architecture.md, "ShopkeeperKit".
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]
/// swift-crypto where CryptoKit is missing; on Apple platforms nothing is linked.
let crypto = Target.Dependency.product(
    name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi]))

let package = Package(
    name: "ShopkeeperKit",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "ShopkeeperKit", targets: ["ShopkeeperKit"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0")
    ],
    targets: [
        .target(
            name: "ShopkeeperKit",
            dependencies: [crypto],
            swiftSettings: strict),
        // The README's Linux example: buys at the sandbox store and prints the customer's entitlements.
        .executableTarget(
            name: "ShopkeeperSandboxDemo", dependencies: ["ShopkeeperKit"], swiftSettings: strict),
        // Unit tests: models against docs/openapi.yaml's examples, pure rules, the persistent queues.
        .testTarget(name: "ShopkeeperKitTests", dependencies: ["ShopkeeperKit", crypto], swiftSettings: strict),
        // Against a running local stack (scripts/run) through the sandbox store: see Scripts/test-with-stack.
        .testTarget(
            name: "ShopkeeperKitStackTests", dependencies: ["ShopkeeperKit", crypto], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
