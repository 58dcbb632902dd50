import Foundation
import ShopkeeperHTTP
import ShopkeeperModels
import Testing

/// A customer's info travels from entitlements through the verifier to the app as the text PostgreSQL rendered: the
/// answers must be the same JSON documents as the full answer types encode and decode.
@Suite struct EmbeddedJSONTests {
    static let customerText =
        #"{"app_user_id":"a \"quoted\" {brace} [x] \\ id","n":[1,2.5e3,-0.1,true,false,null],"o":{}}"#

    @Test("An answer with its customer added as text decodes as the full answer type, the customer as it was")
    func encodedAnswerIsTheFullDocument() throws {
        let outcome = TransactionOutcome(store: .appStore, transactionID: "t1", productID: "garden", outcome: .granted)
        let answer = CustomerAnswer(ApplyOutcomes(outcomes: [outcome]), customerJSON: Self.customerText)
        let data = try answer.encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["customer", "outcomes"])
        #expect(try EmbeddedJSON.member("customer", in: data) == Self.customerText)
        let read = try CustomerAnswer<ApplyOutcomes>(decoding: data)
        #expect(read.response.outcomes == [outcome])
        #expect(read.customerJSON == Self.customerText)
    }

    @Test("No customer: the member is left out, as the full answer type leaves out a nil")
    func noCustomerLeavesTheMemberOut() throws {
        let empty = try CustomerAnswer(ApplyOutcomes(outcomes: []), customerJSON: nil).encoded()
        #expect(String(decoding: empty, as: UTF8.self) == #"{"outcomes":[]}"#)
        #expect(try CustomerAnswer<ApplyOutcomes>(decoding: empty).customerJSON == nil)
        struct Nothing: Codable {}
        let only = try EmbeddedJSON.encode(Nothing(), adding: ["customer": "{}"])
        #expect(String(decoding: only, as: UTF8.self) == #"{"customer":{}}"#)
    }

    @Test(
        "A top-level member is found past strings, escapes and nesting; nested members of the same name are not it",
        arguments: [
            (#"{"customer":{"a":1}}"#, #"{"a":1}"#),
            (#" { "x" : "customer" , "customer" : [ 1 , {"customer":2} ] } "#, #"[ 1 , {"customer":2} ]"#),
            (#"{"a":{"customer":1},"b":"\\","customer":"text \" }"}"#, #""text \" }""#),
            (#"{"a":[{"b":[]}],"customer":-12.5e-3}"#, "-12.5e-3"),
            (#"{"customer":null}"#, nil),
            (#"{"a":{"customer":1}}"#, nil),
            ("{}", nil),
        ] as [(String, String?)])
    func findsTheTopLevelMember(json: String, expected: String?) throws {
        #expect(try EmbeddedJSON.member("customer", in: Data(json.utf8)) == expected)
    }

    @Test(
        "Split off, the member leaves the same object without it, whatever its place",
        arguments: [
            (#"{"customer":{"a":1}}"#, "{}"),
            (#"{"customer":{"a":1},"b":2}"#, #"{"b":2}"#),
            (#"{"a":1,"customer":[1,{"customer":2}],"b":"customer"}"#, #"{"a":1,"b":"customer"}"#),
            (#" { "a" : 1 , "customer" : "x \" , " } "#, #" { "a" : 1  } "#),
            (#"{"a":1,"customer":null}"#, #"{"a":1}"#),
            (#"{"a":{"customer":1}}"#, #"{"a":{"customer":1}}"#),
            ("{}", "{}"),
        ] as [(String, String)])
    func splitLeavesTheRest(json: String, rest expected: String) throws {
        let (member, rest) = try EmbeddedJSON.split("customer", in: Data(json.utf8))
        #expect(String(decoding: rest, as: UTF8.self) == expected)
        #expect(member == (try EmbeddedJSON.member("customer", in: Data(json.utf8))))
        // The rest is still a JSON object, with every other member as it was.
        var others = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        others["customer"] = nil
        let left = try #require(try JSONSerialization.jsonObject(with: rest) as? [String: Any])
        #expect(
            try JSONSerialization.data(withJSONObject: left, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: others, options: .sortedKeys))
    }

    @Test(
        "What is not a JSON object is refused, never read past its end",
        arguments: [
            "", "[]", #""customer""#, #"{"customer""#, #"{"customer":"#, #"{"a":1 "customer":2}"#,
            #"{"a":"unterminated}"#, #"{"customer":]}"#,
        ])
    func malformedIsRefused(json: String) {
        #expect(throws: EmbeddedJSON.MalformedJSON.self) { try EmbeddedJSON.member("customer", in: Data(json.utf8)) }
        #expect(throws: EmbeddedJSON.MalformedJSON.self) { try EmbeddedJSON.split("customer", in: Data(json.utf8)) }
    }
}
