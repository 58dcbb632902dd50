import Foundation
import ShopkeeperCore
import Testing

/// The `appAccountToken` `shopkeeper sandbox buy --user` puts on Apple purchases.
@Suite struct AppAccountTokenTests {
    @Test func nameBasedUUIDsMatchRFC9562() throws {
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        let uuid = AppAccountToken.nameBasedUUID(name: "www.example.com", namespace: dns)
        #expect(uuid.uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    @Test func eachUserHasOneStableToken() {
        #expect(AppAccountToken.uuid(forAppUserID: "alice") == AppAccountToken.uuid(forAppUserID: "alice"))
        #expect(AppAccountToken.uuid(forAppUserID: "alice") != AppAccountToken.uuid(forAppUserID: "bob"))
        #expect(
            AppAccountToken.uuid(forAppUserID: "alice").uuidString.lowercased()
                == "fdec7792-6418-547d-9ed4-66d9e1df94d9")
    }
}
