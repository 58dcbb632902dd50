import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of every JWS segment.
package enum Base64URL {
    package static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// The bytes of `text`, or `nil` when it is not unpadded base64url. Decodes straight from UTF-8 with a
    /// table: this runs for every segment of every verified transaction.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        if let bytes = text.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0) }) {
            return bytes
        }
        return Array(text.utf8).withUnsafeBufferPointer { decode(bytes: $0) }
    }

    /// Four digits at a time into three bytes, straight into the result's storage; a digit outside the alphabet
    /// (0xFF in the table, the only value with its high bit set) fails the whole decode.
    private static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = bytes.count
        let tail = count % 4
        guard tail != 1 else { return nil }
        let outputCount = count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                var input = 0
                var written = 0
                while input + 4 <= count {
                    let a = table[Int(bytes[input])]
                    let b = table[Int(bytes[input + 1])]
                    let c = table[Int(bytes[input + 2])]
                    let d = table[Int(bytes[input + 3])]
                    guard (a | b | c | d) & 0x80 == 0 else {
                        valid = false
                        break
                    }
                    output[written] = a << 2 | b >> 4
                    output[written + 1] = b << 4 | c >> 2
                    output[written + 2] = c << 6 | d
                    input += 4
                    written += 3
                }
                if valid, tail >= 2 {
                    let a = table[Int(bytes[input])]
                    let b = table[Int(bytes[input + 1])]
                    let c = tail == 3 ? table[Int(bytes[input + 2])] : 0
                    if (a | b | c) & 0x80 != 0 {
                        valid = false
                    } else {
                        output[written] = a << 2 | b >> 4
                        if tail == 3 { output[written + 1] = b << 4 | c >> 2 }
                        written += tail - 1
                    }
                }
                initialized = valid ? written : 0
            }
            return valid ? output : nil
        }
    }

    /// Base64url digit values; 0xFF marks bytes outside the alphabet.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        return table
    }()
}
