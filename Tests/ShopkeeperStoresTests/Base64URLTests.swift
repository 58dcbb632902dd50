import Foundation
import Testing

@testable import ShopkeeperStores

@Suite("Base64url")
struct Base64URLTests {
    /// Foundation's base64 in the url alphabet without padding: the reference the decoder must agree with.
    private func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("Every length decodes to the bytes that were encoded, all 256 byte values included")
    func roundTripsEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let text = reference(bytes)
            #expect(Base64URL.encode(bytes) == text)
            #expect(Base64URL.decode(text) == bytes, "length \(length): \(text)")
            #expect(Base64URL.decode(text[...]) == bytes, "as a substring, length \(length)")
        }
        let everyByte = (0...255).map(UInt8.init)
        #expect(Base64URL.decode(reference(everyByte)) == everyByte)
    }

    @Test(
        "Text that is not unpadded base64url is refused",
        arguments: [
            "a",  // one digit left over carries no whole byte
            "abcde",
            "ab+d",  // the standard alphabet's digits
            "ab/d",
            "YQ==",  // padding
            "YWI=",
            "ab d",  // whitespace
            "abc\n",
            "ab.c",
            "éabc",  // outside ASCII
            "YWJj*",  // a bad digit in the tail
            "Y*",
        ])
    func refusesWhatIsNotBase64URL(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
