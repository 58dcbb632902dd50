import Foundation
import ShopkeeperHTTP
import Testing

/// Finding the NUL character in JSON bodies: real escapes only, located by pointer.
@Suite struct NULCharacterTests {
    struct Labelled: Decodable {
        var label: String
        var tags: [String]?
    }

    @Test func anEscapedNULIsNamedByItsPointer() throws {
        #expect(NULCharacter.pointer(inJSON: Data(#"{"label":"a\u0000b"}"#.utf8)) == "/label")
        #expect(NULCharacter.pointer(inJSON: Data(#"{"label":"x","tags":["ok","\u0000"]}"#.utf8)) == "/tags/1")
        #expect(NULCharacter.pointer(inJSON: Data(#"{"a/b":{"c~d":"\u0000"}}"#.utf8)) == "/a~1b/c~0d")
        #expect(NULCharacter.pointer(inJSON: Data(#"{"\u0000":"x"}"#.utf8)) == "/\u{0}")
    }

    @Test func anEscapedBackslashFollowedByU0000IsText() throws {
        #expect(NULCharacter.pointer(inJSON: Data(#"{"label":"a\\u0000b"}"#.utf8)) == nil)
        #expect(NULCharacter.pointer(inJSON: Data(#"{"label":"a\\\u0000b"}"#.utf8)) == "/label")
        #expect(NULCharacter.pointer(inJSON: Data(#"{"label":"plain"}"#.utf8)) == nil)
    }

    @Test func decodingRefusesTheNULWithAValidationProblem() throws {
        let error = #expect(throws: RequestError.self) {
            try JSONBody.decode(Labelled.self, from: Data(#"{"label":"\u0000"}"#.utf8))
        }
        #expect(error?.code == "validation_failed")
        #expect(error?.fieldProblems == [FieldProblem(pointer: "/label", detail: NULCharacter.problem)])
        #expect(try JSONBody.decode(Labelled.self, from: Data(#"{"label":"\\u0000"}"#.utf8)).label == #"\u0000"#)
    }
}

extension NULCharacterTests {
    struct Kept: Codable {
        var label: String
    }

    @Test func aNULInAMemberTheModelIgnoresIsNoReasonToRefuse() throws {
        let decoded = try JSONBody.decode(Kept.self, from: Data(#"{"label":"ok","\u0000":"\u0000"}"#.utf8))
        #expect(decoded.label == "ok")
        let error = #expect(throws: RequestError.self) {
            try JSONBody.decode(Kept.self, from: Data(#"{"label":"a\u0000","other":1}"#.utf8))
        }
        #expect(error?.fieldProblems.map(\.pointer) == ["/label"])
    }
}

/// Request bodies' dates: a bad one is a 422 naming the field, not a 400 about the whole body.
@Suite struct JSONBodyDateTests {
    struct Grant: Decodable {
        var expiresAt: Date
        enum CodingKeys: String, CodingKey { case expiresAt = "expires_at" }
    }

    @Test func aBadDateIsNamedByItsPointer() throws {
        let error = #expect(throws: RequestError.self) {
            try JSONBody.decode(Grant.self, from: Data(#"{"expires_at":"next tuesday"}"#.utf8))
        }
        #expect(error?.code == "validation_failed")
        #expect(error?.fieldProblems.map(\.pointer) == ["/expires_at"])
        let good = try JSONBody.decode(Grant.self, from: Data(#"{"expires_at":"2025-04-20T00:00:00Z"}"#.utf8))
        #expect(good.expiresAt == Date(timeIntervalSince1970: 1_745_107_200))
    }
}
