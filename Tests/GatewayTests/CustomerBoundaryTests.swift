import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperCustomerTokens
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// The customer boundary end to end through the gateway: in `signed` mode a public key acts for a customer only with
/// a customer token for that customer; `open` apps and secret keys are unaffected.
@Suite struct CustomerBoundaryTests {
    static let customerHeader = HTTPField.Name("x-shopkeeper-customer")!

    @Test func signedModeFirstPurchaseNeedsATokenForItsCustomer() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let sk = world.app.secretKey.key
            let created = try await world.enableSigned()
            let secret = CustomerTokenSecret(id: created.secretID, secret: created.secret)
            func token(_ user: String, lifetime: TimeInterval = 300) async throws -> String {
                try await CustomerToken.mint(subject: user, lifetime: lifetime, secret: secret)
            }
            let jws = try world.signedTransaction()

            // Without a token, with a broken, forged, expired or someone else's token: refused before anything is
            // recorded.
            let missing = try await world.purchase("alice", jws: jws, bearer: pk, token: nil)
            #expect(missing.status == .unauthorized)
            #expect(missing.problemCode == "customer_token_required")
            #expect(missing.headers[.contentType] == "application/problem+json")
            #expect(try missing.violations(.post, "/v1/purchases") == [])
            let garbage = try await world.purchase("alice", jws: jws, bearer: pk, token: "not-a-token")
            #expect(garbage.status == .unauthorized)
            #expect(garbage.problemCode == "customer_token_invalid")
            let forged = try HandMadeToken.make(
                HandMadeToken.claims("alice"), secret: "cts_not_the_apps_secret_0123456789abcdefghijk")
            let badSignature = try await world.purchase("alice", jws: jws, bearer: pk, token: forged)
            #expect(badSignature.problemCode == "customer_token_invalid")
            let expired = try HandMadeToken.make(HandMadeToken.claims("alice", expires: -10), secret: created.secret)
            let late = try await world.purchase("alice", jws: jws, bearer: pk, token: expired)
            #expect(late.status == .unauthorized)
            #expect(late.problemCode == "customer_token_expired")
            let endless = try HandMadeToken.make(HandMadeToken.claims("alice", expires: nil), secret: created.secret)
            #expect(
                try await world.purchase("alice", jws: jws, bearer: pk, token: endless).problemCode
                    == "customer_token_invalid")
            let tooLong = try HandMadeToken.make(
                HandMadeToken.claims("alice", expires: 48 * 3600), secret: created.secret)
            #expect(
                try await world.purchase("alice", jws: jws, bearer: pk, token: tooLong).problemCode
                    == "customer_token_invalid")
            // The body names alice, the token bob: the verifier compares with the customer the gateway forwarded.
            let mismatch = try await world.purchase("alice", jws: jws, bearer: pk, token: try await token("bob"))
            #expect(mismatch.status == .forbidden)
            #expect(mismatch.problemCode == "customer_token_mismatch")
            #expect(try mismatch.violations(.post, "/v1/purchases") == [])
            // A client cannot name the customer itself in the internal header: the gateway strips it and signs its
            // own, so bob's token with "x-shopkeeper-customer: alice" is still bob's.
            let injected = try await world.purchase(
                "alice", jws: jws, bearer: pk, token: try await token("bob"), headers: [Self.customerHeader: "alice"])
            #expect(injected.problemCode == "customer_token_mismatch")
            let injectedWithoutToken = try await world.purchase(
                "alice", jws: jws, bearer: pk, token: nil, headers: [Self.customerHeader: "alice"])
            #expect(injectedWithoutToken.problemCode == "customer_token_required")

            // The first purchase with alice's token goes through, and alice's token reads alice's document.
            let aliceToken = try await token("alice")
            let bought = try await world.purchase("alice", jws: jws, bearer: pk, token: aliceToken)
            #expect(bought.status == .ok, "\(bought.text)")
            let document = try await world.send(.get, "/v1/customers/alice", bearer: pk, token: aliceToken)
            #expect(document.status == .ok)
            let purchases = try TestJSON.object(document.body.readableBytesView)["non_subscription_purchases"]
            #expect((purchases as? [Any])?.count == 1, "\(document.text)")

            // Paths that name a customer: no token, another customer's token, expired: refused, again and again
            // (with a remembered key: the fast path must hand them on), also right after the secret key's read put
            // alice's document in the gateway's micro-cache (entitlements lets it keep it for 250 ms).
            for _ in 0..<3 {
                #expect(try await world.gateway.send(.get, "/v1/customers/alice", bearer: sk).status == .ok)
                let anonymous = try await world.send(.get, "/v1/customers/alice", bearer: pk, token: nil)
                #expect(anonymous.status == .unauthorized)
                #expect(anonymous.problemCode == "customer_token_required")
                #expect(!anonymous.text.contains("non_subscription_purchases"))
                let bobReads = try await world.send(
                    .get, "/v1/customers/alice", bearer: pk, token: try await token("bob"))
                #expect(bobReads.status == .forbidden)
                #expect(bobReads.problemCode == "customer_token_mismatch")
                #expect(try bobReads.violations(.get, "/v1/customers/{app_user_id}") == [])
                let expiredRead = try await world.send(.get, "/v1/customers/alice", bearer: pk, token: expired)
                #expect(expiredRead.problemCode == "customer_token_expired")
                // Right after alice's own read (a micro-cache would have it now), still nothing for others.
                #expect(try await world.send(.get, "/v1/customers/alice", bearer: pk, token: aliceToken).status == .ok)
            }
            // Every kind of customer path: restore, aliases, trial, consume, reset.
            for (method, path) in [
                (HTTPRequest.Method.post, "/v1/customers/alice/restore"), (.post, "/v1/customers/alice/aliases"),
                (.post, "/v1/customers/alice/trial"), (.post, "/v1/customers/alice/consumables/p/consume"),
                (.post, "/v1/customers/alice/reset"), (.post, "/v1/customers/alice/redemption-codes"),
                (.post, "/v1/customers/alice/redeem"),
            ] {
                let refused = try await world.send(
                    method, path, bearer: pk, token: try await token("mallory"), json: Data("{}".utf8))
                #expect(refused.problemCode == "customer_token_mismatch", "\(method) \(path): \(refused.text)")
                let bare = try await world.send(method, path, bearer: pk, token: nil, json: Data("{}".utf8))
                #expect(bare.problemCode == "customer_token_required", "\(method) \(path)")
            }
            // Even with alice's own token, the public key cannot link an id to her: the token proves alice, not the
            // alias (which would let her claim someone else's future id). Linking is for the secret key.
            let link = try await world.send(
                .post, "/v1/customers/alice/aliases", bearer: pk, token: aliceToken,
                json: Data(#"{"alias":"bob-next-month"}"#.utf8))
            #expect(link.status == .forbidden)
            #expect(link.problemCode == "secret_key_required")
            #expect(try link.violations(.post, "/v1/customers/{app_user_id}/aliases") == [])
            // A redemption code for alice's web purchases: her token proves the id, so no anonymous id is needed.
            let code = try await world.send(
                .post, "/v1/customers/alice/redemption-codes", bearer: pk, token: aliceToken)
            #expect(code.status == .created, "\(code.text)")
            #expect(try code.violations(.post, "/v1/customers/{app_user_id}/redemption-codes") == [])
            let serverLink = try await world.gateway.send(
                .post, "/v1/customers/alice/aliases", bearer: sk, json: Data(#"{"alias":"alice-login"}"#.utf8))
            #expect(serverLink.status == .ok, "\(serverLink.text)")
            // Doubled slashes name the same customer to the routers: never answered with alice's document.
            for path in ["//v1/customers/alice", "/v1//customers/alice", "/v1/customers//alice"] {
                let sneaky = try await world.send(.get, path, bearer: pk, token: try await token("mallory"))
                #expect(sneaky.status.code >= 400, "\(path): \(sneaky.status)")
                #expect(!sneaky.text.contains("non_subscription_purchases"), "\(path)")
            }
            // The catalog names no customer: no token needed.
            #expect(
                try await world.gateway.send(.get, "/v1/catalog?platform=app_store&app_version=1.0", bearer: pk).status
                    == .ok)

            // The secret key is never asked for a token.
            let server = try await world.gateway.send(.get, "/v1/customers/alice", bearer: sk)
            #expect(server.status == .ok)
            let serverPurchase = try await world.purchase(
                "carol", jws: try world.signedTransaction(), bearer: sk, token: nil)
            #expect(serverPurchase.status == .ok, "\(serverPurchase.text)")
        }
    }

    @Test func secretsAreShownOnceRotateAndGateTheSwitch() async throws {
        try await SignedPurchaseWorld.run { world in
            let (pk, sk) = (world.app.publicKey.key, world.app.secretKey.key)
            let boundary = "/v1/admin/customer-boundary"
            let initial = try await world.gateway.send(.get, boundary, bearer: sk)
            #expect(try initial.decode(CustomerBoundary.self) == CustomerBoundary(mode: .open, secrets: []))
            #expect(try initial.violations(.get, boundary) == [])
            // `signed` needs a secret first.
            let early = try await world.gateway.send(
                .put, boundary, bearer: sk, json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
            #expect(early.status == .conflict)
            #expect(early.problemCode == "customer_token_secret_required")
            #expect(try early.violations(.put, boundary) == [])
            // Public keys manage nothing.
            for (method, path) in [
                (HTTPRequest.Method.get, boundary), (.put, boundary), (.post, boundary + "/secrets"),
                (.delete, boundary + "/secrets/ctk_x"),
            ] {
                let response = try await world.gateway.send(
                    method, path, bearer: pk,
                    json: method == .put ? try TestJSON.encode(SetCustomerBoundaryRequest(mode: .open)) : nil)
                #expect(response.problemCode == "secret_key_required", "\(method) \(path)")
            }

            let first = try await world.enableSigned()
            #expect(first.secret.hasPrefix("cts_") && first.secret.count == 47)
            let listed = try await world.gateway.send(.get, boundary, bearer: sk)
            #expect(try listed.decode(CustomerBoundary.self).secrets.map(\.secretID) == [first.secretID])
            #expect(try listed.decode(CustomerBoundary.self).mode == .signed)
            #expect(!listed.text.contains(first.secret))
            // Sealed at rest: the database never holds the secret's text.
            let stored = try await TestDatabase.withClient { client in
                try await client.query(
                    "SELECT sealed FROM gateway.customer_token_keys WHERE key_id = \(first.secretID)"
                ).collect().first?.decode(ByteBuffer.self)
            }
            let sealed = try #require(stored)
            #expect(sealed.readableBytes > first.secret.utf8.count)
            #expect(!String(buffer: sealed).contains(first.secret))

            // Rotation: a second secret; tokens of either work until the first is revoked.
            let created = try await world.gateway.send(.post, boundary + "/secrets", bearer: sk)
            #expect(created.status == .created)
            #expect(try created.violations(.post, boundary + "/secrets") == [])
            let second = try created.decode(CreatedCustomerTokenSecret.self)
            let oldToken = try await CustomerToken.mint(
                subject: "dana", lifetime: 300, secret: CustomerTokenSecret(id: first.secretID, secret: first.secret))
            let newToken = try HandMadeToken.make(HandMadeToken.claims("dana"), secret: second.secret)
            #expect(try await world.send(.get, "/v1/customers/dana", bearer: pk, token: oldToken).status == .ok)
            #expect(try await world.send(.get, "/v1/customers/dana", bearer: pk, token: newToken).status == .ok)
            let revoked = try await world.gateway.send(
                .delete, boundary + "/secrets/\(first.secretID)", bearer: sk)
            #expect(revoked.status == .ok)
            #expect(try revoked.decode(CustomerTokenSecretInfo.self).revokedAt != nil)
            #expect(try revoked.violations(.delete, boundary + "/secrets/{secret_id}") == [])
            let refused = try await world.send(.get, "/v1/customers/dana", bearer: pk, token: oldToken)
            #expect(refused.problemCode == "customer_token_invalid")
            #expect(try await world.send(.get, "/v1/customers/dana", bearer: pk, token: newToken).status == .ok)
            let unknown = try await world.gateway.send(.delete, boundary + "/secrets/ctk_nope", bearer: sk)
            #expect(unknown.problemCode == "customer_token_secret_not_found")

            // Back to open: naming the customer is enough again.
            let reopened = try await world.gateway.send(
                .put, boundary, bearer: sk, json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .open)))
            #expect(try reopened.decode(CustomerBoundary.self).mode == .open)
            #expect(try await world.send(.get, "/v1/customers/dana", bearer: pk, token: nil).status == .ok)

            // The operator API does the same for any app.
            let op = GatewayHarness.operatorKey
            let path = "/operator/v1/apps/\(world.app.info.appID)/customer-boundary"
            let operatorView = try await world.gateway.send(.get, path, bearer: op)
            #expect(try operatorView.decode(CustomerBoundary.self).secrets.map(\.secretID) == [second.secretID])
            #expect(try operatorView.violations(.get, "/operator/v1/apps/{app_id}/customer-boundary") == [])
            let operatorSecret = try await world.gateway.send(.post, path + "/secrets", bearer: op)
            #expect(operatorSecret.status == .created)
            let operatorSigned = try await world.gateway.send(
                .put, path, bearer: op, json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
            #expect(try operatorSigned.decode(CustomerBoundary.self).mode == .signed)
            #expect(try await world.send(.get, "/v1/customers/dana", bearer: pk, token: nil).status == .unauthorized)
            #expect(try await world.gateway.send(.get, path, bearer: sk).status == .unauthorized)
        }
    }

    @Test func registeredPublicKeysSignES256Tokens() async throws {
        try await SignedPurchaseWorld.run { world in
            let (pk, sk) = (world.app.publicKey.key, world.app.secretKey.key)
            let keys = "/v1/admin/customer-boundary/public-keys"
            let invalid = try await world.gateway.send(
                .post, keys, bearer: sk,
                json: try TestJSON.encode(RegisterCustomerTokenPublicKeyRequest(publicKey: "not a key")))
            #expect(invalid.status == .unprocessableContent)
            #expect(try invalid.violations(.post, keys) == [])
            let privateKey = P256.Signing.PrivateKey()
            let request = RegisterCustomerTokenPublicKeyRequest(publicKey: privateKey.publicKey.pemRepresentation)
            #expect(
                try await world.gateway.send(.post, keys, bearer: pk, json: try TestJSON.encode(request)).problemCode
                    == "secret_key_required")
            let registered = try await world.gateway.send(.post, keys, bearer: sk, json: try TestJSON.encode(request))
            #expect(registered.status == .created)
            #expect(try registered.violations(.post, keys) == [])
            let info = try registered.decode(CustomerTokenPublicKeyInfo.self)
            // A public key is enough to switch to `signed` (the app's server keeps the private key).
            let switched = try await world.gateway.send(
                .put, "/v1/admin/customer-boundary", bearer: sk,
                json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed)))
            let boundary = try switched.decode(CustomerBoundary.self)
            #expect(boundary.mode == .signed && boundary.secrets.isEmpty)
            #expect(boundary.publicKeys.map(\.keyID) == [info.keyID])

            let token = try await CustomerToken.mint(
                subject: "gina", lifetime: 300, privateKeyPEM: privateKey.pemRepresentation, keyID: info.keyID)
            #expect(try await world.send(.get, "/v1/customers/gina", bearer: pk, token: token).status == .ok)
            let bought = try await world.purchase("gina", jws: try world.signedTransaction(), bearer: pk, token: token)
            #expect(bought.status == .ok, "\(bought.text)")
            #expect(
                try await world.send(.get, "/v1/customers/hank", bearer: pk, token: token).problemCode
                    == "customer_token_mismatch")
            let confused = try HandMadeToken.make(
                HandMadeToken.claims("gina"), secret: info.publicKey,
                header: ["alg": "HS256", "typ": "JWT", "kid": info.keyID])
            #expect(
                try await world.send(.get, "/v1/customers/gina", bearer: pk, token: confused).problemCode
                    == "customer_token_invalid")

            let revoked = try await world.gateway.send(.delete, keys + "/\(info.keyID)", bearer: sk)
            #expect(try revoked.decode(CustomerTokenPublicKeyInfo.self).revokedAt != nil)
            #expect(try revoked.violations(.delete, keys + "/{key_id}") == [])
            #expect(
                try await world.send(.get, "/v1/customers/gina", bearer: pk, token: token).problemCode
                    == "customer_token_invalid")
            let unknown = try await world.gateway.send(.delete, keys + "/cpk_nope", bearer: sk)
            #expect(unknown.problemCode == "customer_token_public_key_not_found")

            // The operator API registers too.
            let path = "/operator/v1/apps/\(world.app.info.appID)/customer-boundary/public-keys"
            let byOperator = try await world.gateway.send(
                .post, path, bearer: GatewayHarness.operatorKey, json: try TestJSON.encode(request))
            #expect(byOperator.status == .created)
            #expect(try byOperator.violations(.post, "/operator/v1/apps/{app_id}/customer-boundary/public-keys") == [])
            #expect(try await world.send(.get, "/v1/customers/gina", bearer: pk, token: token).status == .ok)
        }
    }

    @Test func openAppsAreUnaffected() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            // Another app in the same gateway is signed; this one stays open.
            let other = try await world.gateway.createApp("Signed neighbour")
            let created = try await world.gateway.send(
                .post, "/v1/admin/customer-boundary/secrets", bearer: other.secretKey.key)
            #expect(created.status == .created)
            #expect(
                try await world.gateway.send(
                    .put, "/v1/admin/customer-boundary", bearer: other.secretKey.key,
                    json: try TestJSON.encode(SetCustomerBoundaryRequest(mode: .signed))
                ).status == .ok)

            let bought = try await world.purchase("erin", jws: try world.signedTransaction(), bearer: pk, token: nil)
            #expect(bought.status == .ok, "\(bought.text)")
            // A stray token or internal header changes nothing in open mode (the internal header is dropped).
            for _ in 0..<3 {
                let read = try await world.send(
                    .get, "/v1/customers/erin", bearer: pk, token: "whatever", headers: [Self.customerHeader: "x"])
                #expect(read.status == .ok)
            }
            let stray = try await world.purchase(
                "frank", jws: try world.signedTransaction(), bearer: pk, token: nil,
                headers: [Self.customerHeader: "someone-else"])
            #expect(stray.status == .ok, "\(stray.text)")
            #expect(
                try await world.gateway.send(.get, "/v1/customers/erin", bearer: other.publicKey.key).problemCode
                    == "customer_token_required")
        }
    }
}
