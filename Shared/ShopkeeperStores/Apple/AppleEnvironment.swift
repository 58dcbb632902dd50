/// The App Store server environment a transaction belongs to (Apple's `environment` values).
package enum AppleEnvironment: String, Codable, Sendable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode: signed by Xcode, not by Apple. Development only.
    case xcode = "Xcode"
    /// StoreKit testing in the simulator: signed locally, not by Apple. Development only.
    case localTesting = "LocalTesting"

    /// Whether Apple itself signs data in this environment.
    package var isSignedByApple: Bool {
        self == .production || self == .sandbox
    }
}

/// Apple's in-app purchase types (the JWS payload's `type`).
package enum AppleProductType: String, Codable, Sendable, CaseIterable {
    case autoRenewable = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewing = "Non-Renewing Subscription"
}
