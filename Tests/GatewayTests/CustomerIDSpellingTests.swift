import Foundation
import HTTPTypes
import HummingbirdTesting
import ShopkeeperCustomerTokens
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// One customer id, however a client spells it in a path, is one customer at the gateway and in every service
/// behind it: the gateway decodes the path's id once (``CustomerPath``), compares a customer token with that, and
/// forwards the one canonical spelling the services read as is.
@Suite struct CustomerIDSpellingTests {
    /// An id as the app holds it, as the body of a purchase names it, and the ways a path may spell it.
    struct Spelling: Sendable {
        /// The id, canonical (NFC).
        var id: String
        /// The id as a purchase's body names it (a decomposed `é` for the NFC cases).
        var bought: String
        /// Path segments that all name ``id``.
        var segments: [String]
    }

    static let longID = String(repeating: "k", count: 255)
    static let longAccented = String(repeating: "\u{FC}", count: 255)

    static let table: [Spelling] = [
        Spelling(id: "a b", bought: "a b", segments: ["a%20b", "a%20%62"]),
        Spelling(id: "bobA", bought: "bobA", segments: ["bobA", "bob%41", "%62obA"]),
        // Another customer whose id holds the characters `%41`: only `%25` spells its `%`.
        Spelling(id: "bob%41", bought: "bob%41", segments: ["bob%2541"]),
        Spelling(id: "x/y", bought: "x/y", segments: ["x%2Fy", "x%2fy"]),
        Spelling(id: "x+y", bought: "x+y", segments: ["x+y", "x%2By"]),
        Spelling(id: "\u{E9}t\u{E9}", bought: "e\u{301}te\u{301}", segments: ["%C3%A9t%C3%A9", "e%CC%81te%CC%81"]),
        Spelling(id: "\u{1F331}", bought: "\u{1F331}", segments: ["%F0%9F%8C%B1"]),
        Spelling(
            id: "mail@example.com:1", bought: "mail@example.com:1",
            segments: ["mail@example.com:1", "mail%40example.com%3A1"]),
        Spelling(id: longID, bought: longID, segments: [longID]),
        Spelling(
            id: longAccented, bought: String(repeating: "u\u{308}", count: 255),
            segments: [String(repeating: "%C3%BC", count: 255), String(repeating: "u%CC%88", count: 255)]),
    ]

    @Test func everySpellingOfAnIdReachesOneCustomerInEveryOperation() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let sk = world.app.secretKey.key
            for spelling in Self.table {
                let bought = try await world.purchase(
                    spelling.bought, jws: try world.signedTransaction(consumable: true), bearer: pk, token: nil)
                #expect(bought.status == .ok, "\(spelling.id): \(bought.text)")
            }
            for spelling in Self.table {
                var balance: Int64 = 10
                for segment in spelling.segments {
                    let path = "/v1/customers/\(segment)"
                    let read = try await world.send(.get, path, bearer: pk, token: nil)
                    #expect(read.status == .ok, "GET \(path): \(read.text)")
                    let info = try read.decode(CustomerInfo.self)
                    #expect(info.appUserID == spelling.id, "GET \(path)")
                    #expect(info.consumableBalances["fertilizer"] == balance, "GET \(path)")

                    let consumed = try await world.send(
                        .post, "\(path)/consumables/fertilizer/consume", bearer: pk, token: nil,
                        json: Data(#"{"quantity":1}"#.utf8),
                        headers: [HTTPField.Name("Idempotency-Key")!: UUID().uuidString])
                    #expect(consumed.status == .ok, "consume \(path): \(consumed.text)")
                    balance -= 1

                    let restored = try await world.send(
                        .post, "\(path)/restore", bearer: pk, token: nil,
                        json: try TestJSON.encode(RestoreRequest(signedTransactions: [try world.signedTransaction()])))
                    #expect(restored.status == .ok, "restore \(path): \(restored.text)")
                    let answer = try restored.decode(RestoreResponse.self)
                    #expect(answer.customer?.appUserID == spelling.id, "restore \(path)")
                    #expect(answer.customer?.consumableBalances["fertilizer"] == balance, "restore \(path)")

                    for (check, key) in [("trial", pk), ("history", sk), ("explain", sk)] {
                        let answered = try await world.send(.get, "\(path)/\(check)", bearer: key, token: nil)
                        #expect(answered.status == .ok, "GET \(path)/\(check): \(answered.text)")
                    }
                }
                // Every spelling acted on this customer and no other: the units each one spent are all gone from
                // here, and the customer whose id looks like another's spelling (`bob%41`) kept its own.
                let final = try await world.send(
                    .get, "/v1/customers/\(AppUserID.segment(spelling.id))", bearer: sk, token: nil)
                let info = try final.decode(CustomerInfo.self)
                #expect(info.consumableBalances["fertilizer"] == 10 - Int64(spelling.segments.count), "\(spelling.id)")
                #expect(info.nonSubscriptionPurchases.filter { $0.productID == "pro" }.count == spelling.segments.count)
            }
        }
    }

    @Test func aTokenActsOnlyOnItsOwnCustomerHoweverThePathSpellsIt() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let sk = world.app.secretKey.key
            for user in ["bobA", "bob%41", "\u{E9}t\u{E9}"] {
                let bought = try await world.purchase(
                    user, jws: try world.signedTransaction(consumable: true), bearer: pk, token: nil)
                #expect(bought.status == .ok, "\(bought.text)")
            }
            let created = try await world.enableSigned()
            let secret = CustomerTokenSecret(id: created.secretID, secret: created.secret)
            func token(_ user: String) async throws -> String {
                try await CustomerToken.mint(subject: user, lifetime: 300, secret: secret)
            }
            func balance(_ user: String) async throws -> Int64? {
                let read = try await world.send(
                    .get, "/v1/customers/\(AppUserID.segment(user))", bearer: sk, token: nil)
                return try read.decode(CustomerInfo.self).consumableBalances["fertilizer"]
            }
            let consume = Data(#"{"quantity":1}"#.utf8)
            func idempotency() -> HTTPFields { [HTTPField.Name("Idempotency-Key")!: UUID().uuidString] }

            // The reproduction: bobA's token on `bob%41` spent the units of the customer `bob%41`. The path names
            // bobA, so bobA's own units are spent, and `bob%41` keeps all of its.
            let bobToken = try await token("bobA")
            let spent = try await world.send(
                .post, "/v1/customers/bob%41/consumables/fertilizer/consume", bearer: pk, token: bobToken,
                json: consume, headers: idempotency())
            #expect(spent.status == .ok, "\(spent.text)")
            #expect(try await balance("bob%41") == 10)
            #expect(try await balance("bobA") == 9)
            // Spelled so that it names `bob%41`, bobA's token is refused.
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/v1/customers/bob%2541/consumables/fertilizer/consume", consume),
                (.get, "/v1/customers/bob%2541", nil),
                (.post, "/v1/customers/bob%2541/restore", Data("{}".utf8)),
            ] {
                let refused = try await world.send(
                    method, path, bearer: pk, token: bobToken, json: body, headers: idempotency())
                #expect(refused.status == .forbidden, "\(method) \(path): \(refused.text)")
                #expect(refused.problemCode == "customer_token_mismatch")
            }
            // A token whose subject is the literal `bob%41` names that customer only where the path does.
            let literalToken = try await token("bob%41")
            let literal = try await world.send(.get, "/v1/customers/bob%2541", bearer: pk, token: literalToken)
            #expect(literal.status == .ok)
            #expect(try literal.decode(CustomerInfo.self).appUserID == "bob%41")
            let notBobA = try await world.send(.get, "/v1/customers/bob%41", bearer: pk, token: literalToken)
            #expect(notBobA.problemCode == "customer_token_mismatch")
            #expect(try await balance("bob%41") == 10)

            // A subject in another normal form is the same customer: every spelling of `été` with either token.
            for subject in ["\u{E9}t\u{E9}", "e\u{301}te\u{301}"] {
                let accented = try await token(subject)
                for segment in ["%C3%A9t%C3%A9", "e%CC%81te%CC%81"] {
                    let read = try await world.send(.get, "/v1/customers/\(segment)", bearer: pk, token: accented)
                    #expect(read.status == .ok, "\(segment): \(read.text)")
                    #expect(try read.decode(CustomerInfo.self).appUserID == "\u{E9}t\u{E9}")
                    let other = try await world.send(.get, "/v1/customers/\(segment)", bearer: pk, token: bobToken)
                    #expect(other.problemCode == "customer_token_mismatch")
                }
            }
        }
    }

    @Test func anIdThatCannotBeDecodedIsAClearProblem() async throws {
        try await SignedPurchaseWorld.run { world in
            let pk = world.app.publicKey.key
            let cases: [(segment: String, status: HTTPResponse.Status, code: String)] = [
                ("%ZZ", .badRequest, "invalid_url"),
                ("abc%4", .badRequest, "invalid_url"),
                ("%FF%FE", .badRequest, "invalid_url"),
                ("%00", .badRequest, "invalid_url"),
                ("a%0Ab", .unprocessableContent, "validation_failed"),
                ("a%09b", .unprocessableContent, "validation_failed"),
                (String(repeating: "k", count: 257), .unprocessableContent, "validation_failed"),
                (String(repeating: "%C3%BC", count: 257), .unprocessableContent, "validation_failed"),
            ]
            for (segment, status, code) in cases {
                for (method, suffix) in [(HTTPRequest.Method.get, ""), (.post, "/restore"), (.get, "/trial")] {
                    let answer = try await world.send(
                        method, "/v1/customers/\(segment)\(suffix)", bearer: pk, token: nil,
                        json: method == .post ? Data("{}".utf8) : nil)
                    #expect(answer.status == status, "\(method) \(segment.prefix(20))\(suffix): \(answer.text)")
                    #expect(answer.problemCode == code, "\(method) \(segment.prefix(20))\(suffix)")
                    #expect(answer.headers[.contentType] == "application/problem+json")
                }
            }
        }
    }
}
