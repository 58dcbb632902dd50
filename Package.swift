// swift-tools-version: 6.1
import PackageDescription

/// Swift settings every Shopkeeper target shares.
let shopkeeperSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

extension Target {
    /// A shared library under `Shared/<name>/`.
    static func shared(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
        .target(name: name, dependencies: dependencies, path: "Shared/\(name)", swiftSettings: shopkeeperSwiftSettings)
    }

    /// A service executable under `Services/<folder>/`.
    static func service(_ name: String, folder: String, dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name,
            dependencies: dependencies,
            path: "Services/\(folder)",
            swiftSettings: shopkeeperSwiftSettings
        )
    }

    /// A test target under `Tests/<name>/`.
    static func tests(_ name: String, dependencies: [Target.Dependency]) -> Target {
        .testTarget(
            name: name, dependencies: dependencies, path: "Tests/\(name)", swiftSettings: shopkeeperSwiftSettings)
    }
}

extension Target.Dependency {
    static let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
    static let hummingbirdCore = Target.Dependency.product(name: "HummingbirdCore", package: "hummingbird")
    static let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
    static let postgresNIO = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
    static let asyncHTTPClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
    static let serviceLifecycle = Target.Dependency.product(
        name: "ServiceLifecycle", package: "swift-service-lifecycle")
    static let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
    static let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
    static let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
    static let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
    static let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
    static let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
    static let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
    static let nioHTTPTypes = Target.Dependency.product(name: "NIOHTTPTypes", package: "swift-nio-extras")
    static let nioHTTPTypesHTTP1 = Target.Dependency.product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras")
    static let nioConcurrencyHelpers = Target.Dependency.product(name: "NIOConcurrencyHelpers", package: "swift-nio")
    static let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
    static let cryptoExtras = Target.Dependency.product(name: "_CryptoExtras", package: "swift-crypto")
    static let jwtKit = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
    static let x509 = Target.Dependency.product(name: "X509", package: "swift-certificates")
    static let asn1 = Target.Dependency.product(name: "SwiftASN1", package: "swift-asn1")
    static let nioFileSystem = Target.Dependency.product(name: "_NIOFileSystem", package: "swift-nio")
    static let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")
    static let otel = Target.Dependency.product(name: "OTel", package: "swift-otel")
}

let package = Package(
    name: "Shopkeeper",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "shopkeeper-gateway", targets: ["Gateway"]),
        .executable(name: "shopkeeper-catalog", targets: ["Catalog"]),
        .executable(name: "shopkeeper-verifier", targets: ["Verifier"]),
        .executable(name: "shopkeeper-entitlements", targets: ["Entitlements"]),
        .executable(name: "shopkeeper-subscriptions", targets: ["Subscriptions"]),
        .executable(name: "shopkeeper-content", targets: ["Content"]),
        .executable(name: "shopkeeper-sandbox-store", targets: ["SandboxStore"]),
        .executable(name: "shopkeeper", targets: ["ShopkeeperCLI"]),
        .executable(name: "shopkeeper-bench-hello", targets: ["BenchmarkHello"]),
        .executable(name: "shopkeeper-bench-jws", targets: ["BenchmarkJWSVerify"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OTLP/HTTP only: the gRPC exporter's dependencies would double the build for nothing we use.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // Shared libraries: written once, linked by every service that needs them.
        .shared("ShopkeeperModels"),
        .shared("ShopkeeperCore", dependencies: ["ShopkeeperModels", .logging, .crypto]),
        .shared(
            "ShopkeeperHTTP",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperDatabase", "ShopkeeperModels", .hummingbird, .hummingbirdCore, .logging,
                .metrics, .prometheus, .postgresNIO, .nioCore, .nioPosix, .asyncHTTPClient, .serviceLifecycle,
                .unixSignals, .nioConcurrencyHelpers, .tracing, .otel, .crypto,
            ]
        ),
        .shared("ShopkeeperDatabase", dependencies: ["ShopkeeperCore", .postgresNIO, .logging]),
        .shared(
            "ShopkeeperStores",
            dependencies: ["ShopkeeperCore", .crypto, .cryptoExtras, .jwtKit, .x509, .asn1, .nioConcurrencyHelpers]
        ),
        .shared("ShopkeeperCustomerTokens", dependencies: [.jwtKit]),
        // The stored customer info as its readers (the gateway, entitlements) read it, and their `last_seen` writes.
        .shared(
            "ShopkeeperStoredCustomerInfo",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperDatabase", "ShopkeeperHTTP", .postgresNIO, .logging, .serviceLifecycle,
                .nioConcurrencyHelpers,
            ]
        ),
        .shared(
            "ShopkeeperReports",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperDatabase", "ShopkeeperHTTP", "ShopkeeperModels", .hummingbird,
                .hummingbirdCore, .postgresNIO, .logging, .nioCore, .serviceLifecycle,
            ]
        ),
        .shared(
            "ShopkeeperClients",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperModels", .asyncHTTPClient, .logging, .nioCore, .nioHTTP1,
            ]
        ),
        .shared(
            "ShopkeeperTestSupport",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperDatabase", "ShopkeeperHTTP", "ShopkeeperModels", .hummingbird,
                .hummingbirdTesting, .postgresNIO, .nioCore, .nioPosix, .nioHTTP1, .asyncHTTPClient,
                .logging, .product(name: "Yams", package: "Yams"),
            ]
        ),

        // Services: one executable each.
        .service(
            "Gateway",
            folder: "Gateway",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperClients",
                "ShopkeeperCustomerTokens", "ShopkeeperStoredCustomerInfo", .hummingbird, .postgresNIO,
                .asyncHTTPClient, .serviceLifecycle, .logging, .metrics, .crypto, .nioCore, .nioPosix, .nioHTTP1,
                .nioHTTPTypes, .nioHTTPTypesHTTP1, .hummingbirdCore,
            ]
        ),
        .service(
            "Catalog",
            folder: "Catalog",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperReports",
                .hummingbird, .postgresNIO, .serviceLifecycle, .logging, .metrics, .crypto, .nioPosix,
            ]
        ),

        .service(
            "Verifier",
            folder: "Verifier",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperStores",
                "ShopkeeperClients", .hummingbird, .postgresNIO, .asyncHTTPClient, .serviceLifecycle, .logging,
                .metrics, .crypto,
                .cryptoExtras, .x509, .nioCore, .nioPosix, .nioHTTP1, .nioConcurrencyHelpers,
            ]
        ),
        .service(
            "Subscriptions",
            folder: "Subscriptions",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperReports",
                .hummingbird, .postgresNIO, .serviceLifecycle, .logging, .metrics,
            ]
        ),
        .service(
            "Entitlements",
            folder: "Entitlements",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperReports",
                "ShopkeeperClients", "ShopkeeperStoredCustomerInfo",
                .hummingbird, .postgresNIO, .asyncHTTPClient, .serviceLifecycle, .logging, .metrics, .crypto,
                .nioCore, .nioPosix, .nioHTTP1, .nioConcurrencyHelpers, .nioSSL,
            ]
        ),
        .service(
            "Content",
            folder: "Content",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperReports",
                "ShopkeeperClients",
                .hummingbird, .postgresNIO, .asyncHTTPClient, .serviceLifecycle, .logging, .metrics, .prometheus,
                .crypto, .nioCore, .nioPosix, .nioFileSystem,
            ]
        ),
        .service(
            "SandboxStore",
            folder: "SandboxStore",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperModels", "ShopkeeperStores",
                .hummingbird, .logging, .metrics, .prometheus, .crypto, .cryptoExtras, .nioCore, .asyncHTTPClient,
                .serviceLifecycle,
            ]
        ),

        // The developer and operator tool.
        .executableTarget(
            name: "ShopkeeperCLI",
            dependencies: [
                "ShopkeeperCore", "ShopkeeperModels", "ShopkeeperCustomerTokens", .argumentParser, .asyncHTTPClient,
                .nioCore, .crypto,
            ],
            path: "Tools/ShopkeeperCLI",
            swiftSettings: shopkeeperSwiftSettings
        ),

        // The reference server of the HTTP benchmarks (Benchmarks/README.md).
        .executableTarget(
            name: "BenchmarkHello",
            dependencies: [.hummingbird],
            path: "Benchmarks/HelloServer",
            swiftSettings: shopkeeperSwiftSettings
        ),

        // The in-process StoreKit 2 verification benchmark (Benchmarks/README.md).
        .executableTarget(
            name: "BenchmarkJWSVerify",
            dependencies: ["ShopkeeperStores", .crypto],
            path: "Benchmarks/JWSVerify",
            swiftSettings: shopkeeperSwiftSettings
        ),

        // Tests mirror what they test.
        .tests("ShopkeeperModelsTests", dependencies: ["ShopkeeperModels"]),
        .tests(
            "ShopkeeperHTTPTests",
            dependencies: [
                "ShopkeeperHTTP", "ShopkeeperCore", "ShopkeeperDatabase", "ShopkeeperModels", "ShopkeeperTestSupport",
                .hummingbirdTesting,
                .logging, .postgresNIO, .serviceLifecycle, .nioConcurrencyHelpers,
            ]
        ),
        .tests(
            "ShopkeeperDatabaseTests",
            dependencies: ["ShopkeeperDatabase", "ShopkeeperTestSupport", .nioConcurrencyHelpers]),
        .tests(
            "ShopkeeperReportsTests",
            dependencies: [
                "ShopkeeperReports", "ShopkeeperCore", "ShopkeeperHTTP", "ShopkeeperModels", .hummingbird,
                .hummingbirdCore,
            ]),
        .tests("ShopkeeperStoresTests", dependencies: ["ShopkeeperStores", .crypto, .cryptoExtras, .x509, .asn1]),
        .tests(
            "CatalogTests", dependencies: ["Catalog", "ShopkeeperModels", "ShopkeeperTestSupport", .hummingbirdTesting]),
        .tests(
            "GatewayTests",
            dependencies: [
                "Gateway", "Catalog", "Verifier", "Entitlements", "Subscriptions", "Content", "ShopkeeperTestSupport",
                "ShopkeeperCustomerTokens", "ShopkeeperStores", .hummingbirdTesting,
                .asyncHTTPClient,
                .crypto, .cryptoExtras,
            ]
        ),
        .tests(
            "VerifierTests",
            dependencies: [
                "Verifier", "Catalog", "Entitlements", "Subscriptions", "ShopkeeperStores", "ShopkeeperTestSupport",
                "ShopkeeperModels",
                .hummingbirdTesting,
                .crypto, .x509,
            ]
        ),
        .tests(
            "EntitlementsTests",
            dependencies: [
                "Entitlements", "Catalog", "Subscriptions", "ShopkeeperTestSupport", "ShopkeeperModels",
                "ShopkeeperCore", "ShopkeeperStoredCustomerInfo", .hummingbirdTesting, .postgresNIO, .asyncHTTPClient,
            ]
        ),
        .tests(
            "SubscriptionsTests",
            dependencies: [
                "Subscriptions", "Entitlements", "Catalog", "ShopkeeperTestSupport", "ShopkeeperModels",
                "ShopkeeperCore", "ShopkeeperHTTP", .hummingbirdTesting, .postgresNIO,
            ]
        ),
        .tests(
            "ContentTests",
            dependencies: [
                "Content", "Entitlements", "Catalog", "Subscriptions", "Gateway", "ShopkeeperTestSupport",
                "ShopkeeperModels",
                "ShopkeeperCore", .hummingbirdTesting, .postgresNIO, .asyncHTTPClient, .crypto,
            ]
        ),
        .tests(
            "SandboxStoreTests",
            dependencies: [
                "SandboxStore", "ShopkeeperStores", "ShopkeeperCore", "ShopkeeperTestSupport", .hummingbirdTesting,
                .crypto, .cryptoExtras, .x509,
            ]
        ),
        .tests(
            "EndToEndTests",
            dependencies: [
                "ShopkeeperTestSupport", "ShopkeeperModels", "ShopkeeperDatabase", "ShopkeeperCore", .crypto,
                .asyncHTTPClient, .hummingbird, .hummingbirdTesting, .postgresNIO, .nioCore, .nioPosix,
            ]),
    ]
)
