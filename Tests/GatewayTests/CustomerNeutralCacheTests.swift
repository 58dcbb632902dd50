import HTTPTypes
import ShopkeeperTestSupport
import Testing

@testable import Gateway

/// An answer the service marks customer-neutral (``ResponseMicroCache/customerNeutralHeader``) is kept once for every
/// customer asking the same query; any other is kept per URI, and a customer spelled any way the gateway does not
/// check itself is always the service's to answer.
@Suite struct CustomerNeutralCacheTests {
    @Test func oneNeutralAnswerServesEveryCustomerAskingTheSameQuery() async throws {
        try await ChannelProxyTests.withGatewayBeforeUpstream { gateway in
            let app = try await gateway.createApp("Neutral")
            let key = app.publicKey.key
            func answer(_ query: String) async throws -> String {
                let response = try await gateway.send(.get, "/v1/offerings?" + query, bearer: key)
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name(ResponseMicroCache.customerNeutralHeader)!] == nil)
                return String(buffer: response.body)
            }
            let first = try await answer("neutral=yes&app_user_id=ann&platform=app_store")
            for customer in ["bob", "carol", "dave@example.com", "ann"] {
                #expect(try await answer("neutral=yes&app_user_id=\(customer)&platform=app_store") == first)
            }
            // Another query is another answer.
            let german = try await answer("neutral=yes&app_user_id=ann&platform=app_store&locale=de")
            #expect(german != first)
            // Spellings the service decides (encoded, twice, empty) are forwarded, every time.
            var seen: Set<String> = [first, german]
            for query in [
                "neutral=yes&app_user_id=b%6Fb&platform=app_store",
                "neutral=yes&app_user_id=ann&app_user_id=bob&platform=app_store",
                "neutral=yes&app_user_id=&platform=app_store",
                "neutral=yes&app_user_id=a+b&platform=app_store",
            ] {
                #expect(seen.insert(try await answer(query)).inserted, "\(query)")
            }
            // An answer not marked neutral is each customer's own.
            let ann = try await answer("neutral=no&app_user_id=ann")
            let bob = try await answer("neutral=no&app_user_id=bob")
            #expect(seen.insert(ann).inserted && seen.insert(bob).inserted)
            #expect(try await answer("neutral=no&app_user_id=ann") == ann)
        }
    }
}
