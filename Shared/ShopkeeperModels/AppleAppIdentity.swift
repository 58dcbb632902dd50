/// The App Store's number for an app the sandbox store was not told the number of: what it signs into its
/// transactions, app transactions and notifications, and what `shopkeeper sandbox connect` registers for the app by
/// default, so the default local stack agrees with itself.
package enum AppleAppIdentity {
    /// A stable 10-digit App Apple ID per bundle id (what App Store Connect shows as the app's Apple ID).
    package static func appAppleId(bundleId: String) -> Int64 {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in bundleId.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return 1_000_000_000 + Int64(hash % 8_999_999_999)
    }
}
