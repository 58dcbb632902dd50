import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperCustomerTokens
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Links made with the public key: only the way a log-in makes them (from an install's anonymous id), and none of
/// them survives the switch to the `signed` customer boundary until the secret key confirms it.
@Suite struct AliasBoundaryTests {
    static func anonymous() -> String { "anon_" + UUID().uuidString.lowercased() }
    static let consume = Data(#"{"quantity":1}"#.utf8)
    static func idempotency() -> HTTPFields { [HTTPField.Name("Idempotency-Key")!: UUID().uuidString] }

    static func link(
        _ alias: String, to user: String, in world: SignedPurchaseWorld, bearer: String, token: String? = nil
    )
        async throws -> TestResponse
    {
        try await world.send(
            .post, "/v1/customers/\(AppUserID.segment(user))/aliases", bearer: bearer, token: token,
            json: try TestJSON.encode(["alias": alias]))
    }

    static func balance(of user: String, in world: SignedPurchaseWorld) async throws -> Int64? {
        let read = try await world.send(
            .get, "/v1/customers/\(AppUserID.segment(user))", bearer: world.app.secretKey.key, token: nil)
        return try read.decode(CustomerInfo.self).consumableBalances["fertilizer"]
    }

    @Test func thePublicKeyCannotClaimAnUnusedIdForAnIdentifiedCustomer() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            // The reproduction: an attacker's identified id claims an id nobody used yet.
            let squat = try await Self.link("future_victim", to: "att", in: world, bearer: pk)
            #expect(squat.status == .forbidden, "\(squat.text)")
            #expect(squat.problemCode == "secret_key_required")
            #expect(try squat.violations(.post, "/v1/customers/{app_user_id}/aliases") == [])
            // So the victim's first purchase is the victim's own, out of the attacker's reach.
            let bought = try await world.purchase(
                "future_victim", jws: try world.signedTransaction(consumable: true), bearer: pk, token: nil)
            #expect(bought.status == .ok)
            #expect(try await Self.balance(of: "att", in: world) == nil)
            #expect(try await Self.balance(of: "future_victim", in: world) == 10)
            let victim = try await world.send(.get, "/v1/customers/future_victim", bearer: pk, token: nil)
            #expect(try victim.decode(CustomerInfo.self).aliases == ["future_victim"])

            // The log-in a public key may make: from the install's anonymous id to an id with nothing to lose.
            let install = Self.anonymous()
            let login = try await Self.link("carol", to: install, in: world, bearer: pk)
            #expect(login.status == .ok, "\(login.text)")
            #expect(Set(try login.decode(CustomerInfo.self).aliases) == [install, "carol"])
            // Not to an id whose customer owns something: that is the developer's server's to decide.
            let takeover = try await Self.link("future_victim", to: Self.anonymous(), in: world, bearer: pk)
            #expect(takeover.problemCode == "merge_needs_secret_key")
            // An id that only looks anonymous is an identified one.
            for lookalike in ["anon_123", "anon_" + UUID().uuidString.lowercased() + "x", "anon-" + UUID().uuidString] {
                let refused = try await Self.link("dave-\(UUID().uuidString)", to: lookalike, in: world, bearer: pk)
                #expect(refused.problemCode == "secret_key_required", "\(lookalike)")
            }
            // The secret key links as the developer's server decides.
            let server = try await Self.link("att-login", to: "att", in: world, bearer: world.app.secretKey.key)
            #expect(server.status == .ok)
        }
    }

    @Test func switchingToSignedSuspendsPublicLinksUntilTheSecretKeyConfirmsThem() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let sk = world.app.secretKey.key
            // An anonymous buyer's units; while the app is open, someone links their own id to that install's id.
            let alice = Self.anonymous()
            let bought = try await world.purchase(
                alice, jws: try world.signedTransaction(consumable: true), bearer: pk, token: nil)
            #expect(bought.status == .ok)
            #expect(try await Self.link("mallory_c2", to: alice, in: world, bearer: pk).status == .ok)
            // A public link that folds a whole (empty) customer into another: all of its ids were linked by it.
            let (first, second) = (Self.anonymous(), Self.anonymous())
            #expect(try await Self.link("x_login", to: first, in: world, bearer: pk).status == .ok)
            #expect(try await Self.link(first, to: second, in: world, bearer: pk).status == .ok)
            // The developer's server links its own user with the secret key: that link is proved.
            #expect(try await Self.link("alice_account", to: alice, in: world, bearer: sk).status == .ok)

            let created = try await world.enableSigned()
            let secret = CustomerTokenSecret(id: created.secretID, secret: created.secret)
            let mallory = try await CustomerToken.mint(subject: "mallory_c2", lifetime: 300, secret: secret)
            let aliceToken = try await CustomerToken.mint(subject: "alice_account", lifetime: 300, secret: secret)

            // The reproduction: mallory's token spent alice's units. Now mallory_c2 names nobody.
            let spent = try await world.send(
                .post, "/v1/customers/mallory_c2/consumables/fertilizer/consume", bearer: pk, token: mallory,
                json: Self.consume, headers: Self.idempotency())
            #expect(spent.status != .ok, "\(spent.text)")
            #expect(try await Self.balance(of: alice, in: world) == 10)
            let malloryView = try await world.send(.get, "/v1/customers/mallory_c2", bearer: pk, token: mallory)
            #expect(try malloryView.decode(CustomerInfo.self).consumableBalances.isEmpty)
            // The secret key's link still stands.
            let aliceView = try await world.send(.get, "/v1/customers/alice_account", bearer: pk, token: aliceToken)
            #expect(try aliceView.decode(CustomerInfo.self).consumableBalances["fertilizer"] == 10)
            #expect(Set(try aliceView.decode(CustomerInfo.self).aliases) == [alice, "alice_account"])

            // The review lists what was suspended, with the customer it addressed.
            let listed = try await world.send(.get, "/v1/admin/aliases/suspended", bearer: sk, token: nil)
            #expect(listed.status == .ok, "\(listed.text)")
            #expect(try listed.violations(.get, "/v1/admin/aliases/suspended") == [])
            let suspended = try listed.decode(SuspendedAliasList.self).aliases
            #expect(Set(suspended.map(\.appUserID)) == ["mallory_c2", first, "x_login"])
            #expect(suspended.allSatisfy { $0.linkedBy == "public" })
            let mallorySuspended = suspended.first { $0.appUserID == "mallory_c2" }
            #expect([alice, "alice_account"].contains(mallorySuspended?.customerAppUserID ?? ""))
            #expect(suspended.first { $0.appUserID == first }?.customerAppUserID == second)
            // Only the secret key reviews.
            let publicReview = try await world.send(.get, "/v1/admin/aliases/suspended", bearer: pk, token: mallory)
            #expect(publicReview.status == .forbidden)

            // Switching again suspends nothing more; confirming links the id again, once.
            let again = try await world.send(
                .put, "/v1/admin/customer-boundary", bearer: sk, token: nil,
                json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
            #expect(again.status == .ok)
            let confirm = try TestJSON.encode(["app_user_id": "mallory_c2"])
            let confirmed = try await world.send(
                .post, "/v1/admin/aliases/suspended/confirm", bearer: sk, token: nil, json: confirm)
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            #expect(try confirmed.violations(.post, "/v1/admin/aliases/suspended/confirm") == [])
            #expect(try confirmed.decode(CustomerInfo.self).aliases.contains("mallory_c2"))
            let readAgain = try await world.send(.get, "/v1/customers/mallory_c2", bearer: pk, token: mallory)
            #expect(try readAgain.decode(CustomerInfo.self).consumableBalances["fertilizer"] == 10)
            let twice = try await world.send(
                .post, "/v1/admin/aliases/suspended/confirm", bearer: sk, token: nil, json: confirm)
            #expect(twice.status == .notFound)
            #expect(twice.problemCode == "suspended_alias_not_found")
            let left = try await world.send(.get, "/v1/admin/aliases/suspended", bearer: sk, token: nil)
            #expect(Set(try left.decode(SuspendedAliasList.self).aliases.map(\.appUserID)) == [first, "x_login"])
        }
    }
}
