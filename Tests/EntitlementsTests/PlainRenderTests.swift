import Foundation
import Logging
import PostgresNIO
import ShopkeeperDatabase
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

@testable import Entitlements

/// A write renders a plain customer's info with a shorter statement (``CustomerInfoQuery/PlainTouchRenderAndStore``)
/// that decides for itself whether the customer is plain. For a plain customer it must write exactly what the full
/// render writes; for any other it must decline, so that the full render answers.
@Suite struct PlainRenderTests {
    @Test("For a customer with consumables and non-consumables, the plain render writes what the full one writes")
    func plainCustomerRendersAlike() async throws {
        try await EntitlementsHarness.run { harness in
            let ending = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86_400).rounded(.down))
            _ = try await harness.applied(
                [
                    EntitlementsFixtures.transaction(product: "garden"),
                    EntitlementsFixtures.transaction(product: "seeds", quantity: 2),
                    // Refunded, and one with an end ahead (which the info's next change follows).
                    EntitlementsFixtures.transaction(product: "garden", revoked: Date()),
                    EntitlementsFixtures.transaction(product: "garden", expires: ending),
                ], user: "plain")
            #expect(try await harness.consume("plain", quantity: 3).status == .ok)

            let (plain, full) = try await Self.renders(of: "plain", harness: harness)
            let rendered = try #require(plain)
            #expect(rendered.body == full.body)
            #expect(rendered.nextChange == full.nextChange)
            #expect(rendered.nextChange == ending)
            // What the apply answered was stored: a launch reads it as the full render would write it.
            #expect(try await harness.info("plain").consumableBalances == ["seeds": 7])
        }
    }

    @Test("A customer with anything else is rendered in full: the plain render declines it")
    func otherCustomersAreDeclined() async throws {
        try await EntitlementsHarness.run(products: ProductClaimTests.products) { harness in
            let seeds = { EntitlementsFixtures.transaction(product: "seeds") }
            _ = try await harness.applied(
                [
                    seeds(),
                    EntitlementsFixtures.transaction(product: "pro_monthly", expires: Date().addingTimeInterval(3_600)),
                ], user: "subscriber")
            _ = try await harness.applied(
                [seeds(), EntitlementsFixtures.transaction(product: "pro_year")], user: "season")
            _ = try await harness.applied([seeds()], user: "granted")
            #expect(try await harness.grant("vip", to: "granted").status == .created)
            _ = try await harness.applied([seeds()], user: "claimer")
            #expect(try await ProductClaimTests.claim("wallpaper", by: "claimer", harness: harness).status == .created)
            _ = try await harness.applied([seeds()], user: "launcher")
            _ = try AppTransactionTests.answer(
                try await AppTransactionTests.present("app-1", by: "launcher", harness: harness))
            // A customer another was folded into (the secret key may fold one that owns something).
            _ = try await harness.applied([seeds()], user: "keeper")
            _ = try await harness.applied([seeds()], user: "folded")
            #expect(try await harness.link("folded", to: "keeper").status == .ok)

            for user in ["subscriber", "season", "granted", "claimer", "launcher", "keeper"] {
                let (plain, full) = try await Self.renders(of: user, harness: harness)
                #expect(plain == nil, "\(user)")
                // The apply's own answer, which tried the plain render first, is the full render.
                let applied = try await harness.apply([seeds()], user: user)
                let answer = try #require(try applied.json["customer"] as? [String: Any])
                let rendered = try #require(
                    try JSONSerialization.jsonObject(with: Data(full.body.utf8)) as? [String: Any])
                #expect(
                    (answer["subscriptions"] as? [Any])?.count == (rendered["subscriptions"] as? [Any])?.count,
                    "\(user)")
                #expect(
                    (answer["entitlements"] as? [String: Any]).map { Set($0.keys) }
                        == (rendered["entitlements"] as? [String: Any]).map { Set($0.keys) }, "\(user)")
                #expect(
                    (answer["product_grants"] as? [Any])?.count == (rendered["product_grants"] as? [Any])?.count,
                    "\(user)")
            }
        }
    }

    /// What a render wrote: the body and the next change by itself.
    struct Rendered: Equatable {
        var body: String
        var nextChange: Date?
    }

    /// The plain render of `user` (`nil` when it declined) and the full one, each in a transaction rolled back.
    static func renders(of user: String, harness: EntitlementsHarness) async throws -> (Rendered?, Rendered) {
        let logger = Logger(label: "plain-render-test")
        return try await TestDatabase.withClient(harness.database) { client in
            try await client.withConnection { connection in
                func render<S: PreparedSQL>(_ statement: S.Type) async throws -> Rendered? {
                    _ = try await connection.query("BEGIN", logger: logger)
                    let rows = try await connection.run(
                        statement, try PostgresBindings(harness.appID, user), logger: logger
                    ) { row in
                        let (body, _, _, next) = try row.decode((String?, Date, UUID, Date?).self)
                        return body.map { Rendered(body: $0, nextChange: next) }
                    }
                    _ = try await connection.query("ROLLBACK", logger: logger)
                    let row = try #require(rows.first, "no customer \(user)")
                    return row
                }
                let plain = try await render(CustomerInfoQuery.PlainTouchRenderAndStore.self)
                let full = try #require(try await render(CustomerInfoQuery.TouchRenderAndStore.self))
                return (plain, full)
            }
        }
    }
}
