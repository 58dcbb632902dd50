import ShopkeeperCore
import ShopkeeperTestSupport
import Testing

@testable import Verifier

/// A production verifier can never be made to trust the sandbox store.
@Suite struct VerifierSettingsTests {
    static let production = [
        "SHOPKEEPER_ENV": "production",
        "SHOPKEEPER_INTERNAL_SECRET": "production-internal-secret-0123456789abcdef",
        "SHOPKEEPER_MASTER_KEY": "production-master-key-0123456789abcdefghij",
    ]

    func refusal(_ extra: [String: String]) throws -> String? {
        var values = Self.production
        values.merge(extra) { _, new in new }
        do {
            _ = try VerifierSettings.read(from: TestEnvironment.reader(values))
            return nil
        } catch let error as ConfigurationError {
            return error.variable
        }
    }

    @Test func productionRefusesExtraRootsForeignStoreURLsLocalEnvironmentsAndTheDevelopmentMasterKey() throws {
        #expect(try refusal([:]) == nil)
        let root = try VerifierHarness.rootFile(for: VerifierHarness.sharedChain)
        #expect(try refusal(["SHOPKEEPER_APPLE_ROOT_CERTIFICATES": root]) == "SHOPKEEPER_APPLE_ROOT_CERTIFICATES")
        for variable in [
            "SHOPKEEPER_APPLE_PRODUCTION_RECEIPT_URL", "SHOPKEEPER_APPLE_SANDBOX_RECEIPT_URL",
            "SHOPKEEPER_APPLE_PRODUCTION_API_URL", "SHOPKEEPER_APPLE_SANDBOX_API_URL", "SHOPKEEPER_GOOGLE_API_URL",
            "SHOPKEEPER_STRIPE_API_URL", "SHOPKEEPER_APP_STORE_CONNECT_URL",
        ] {
            #expect(try refusal([variable: "http://127.0.0.1:8090/apple"]) == variable)
        }
        #expect(
            try refusal(["SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS": "true"])
                == "SHOPKEEPER_APPLE_ALLOW_LOCAL_ENVIRONMENTS")
        var withoutKey = Self.production
        withoutKey.removeValue(forKey: "SHOPKEEPER_MASTER_KEY")
        #expect(throws: ConfigurationError.self) {
            _ = try VerifierSettings.read(from: TestEnvironment.reader(withoutKey))
        }
    }

    @Test func developmentAcceptsTheSandboxRootAndBuiltInRootsAreAlwaysThere() throws {
        let root = try VerifierHarness.rootFile(for: VerifierHarness.sharedChain)
        let settings = try VerifierSettings.read(
            from: TestEnvironment.reader(["SHOPKEEPER_APPLE_ROOT_CERTIFICATES": root]))
        #expect(settings.appleRoots.count == 3)
        #expect(settings.appleRoots.last == VerifierHarness.sharedChain.root)
        #expect(throws: ConfigurationError.self) {
            _ = try VerifierSettings.read(
                from: TestEnvironment.reader(["SHOPKEEPER_APPLE_ROOT_CERTIFICATES": "/no/such/root.pem"]))
        }
    }

    @Test func theVoidedPurchasesPollDefaultsToTenMinutesAndRefusesNonsense() throws {
        #expect(try VerifierSettings.read(from: TestEnvironment.reader([:])).googleVoidedPollInterval == .seconds(600))
        let short = try VerifierSettings.read(
            from: TestEnvironment.reader(["SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS": "0.2"]))
        #expect(short.googleVoidedPollInterval == .milliseconds(200))
        for bad in ["0", "-5", "soon", "100000"] {
            #expect(
                try refusal(["SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS": bad]) == "SHOPKEEPER_GOOGLE_VOIDED_POLL_SECONDS")
        }
    }
}
