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
