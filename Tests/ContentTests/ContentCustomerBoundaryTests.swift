import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ShopkeeperModels
import ShopkeeperTestSupport
import Testing

/// Content names its customer in the query (manifests) or the body (claims): when the gateway forwards the customer
/// a token proved (`signed` apps), the content service answers only for that customer.
@Suite struct ContentCustomerBoundaryTests {
    @Test func manifestsAndClaimsAnswerOnlyForTheProvedCustomer() async throws {
        try await ContentHarness.run { harness in
            try await harness.push("garden", version: "1.0.0", files: ["readme.txt": Data("spring\n".utf8)])
            #expect(try await harness.apply([ContentFixtures.transaction(product: "garden")]).status == .ok)
            func send(_ method: HTTPRequest.Method, _ uri: String, customer: String?, json: Data? = nil)
                async throws -> TestResponse
            {
                var headers = HTTPFields.signed(
                    method, uri, appID: harness.appID, kind: .public, customer: customer, body: json)
                if json != nil { headers[.contentType] = "application/json" }
                return try await harness.content.execute(
                    uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
            }
            let manifest = "/v1/content/garden?app_user_id=user-1&device_id=device-1"
            #expect(try await send(.get, manifest, customer: "user-1").status == .ok)
            #expect(try await send(.get, manifest, customer: nil).status == .ok)
            let other = try await send(.get, manifest, customer: "user-2")
            #expect(other.status == .forbidden)
            #expect(other.problemCode == "customer_token_mismatch")
            #expect(!other.text.contains("readme.txt"))

            let claim = try TestJSON.encode(ContentClaimRequest(appUserID: "user-1", deviceID: "device-1"))
            let refused = try await send(.post, "/v1/content/garden/claim", customer: "user-2", json: claim)
            #expect(refused.problemCode == "customer_token_mismatch")
            // For the proved customer the claim is judged as usual (garden is not free).
            let judged = try await send(.post, "/v1/content/garden/claim", customer: "user-1", json: claim)
            #expect(judged.problemCode == "product_not_free")
        }
    }
}
