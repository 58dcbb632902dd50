import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of every JWS segment.
public enum Base64URL {
    public static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" { text.removeLast() }
        return text
    }

    /// The bytes of `text`, or `nil` when it is not unpadded base64url. Decodes straight from UTF-8 with a
    /// table: this runs for every segment of every verified transaction.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        if let bytes = text.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0) }) {
            return bytes
        }
        return Array(text.utf8).withUnsafeBufferPointer { decode(bytes: $0) }
    }

    private static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = bytes.count
        guard count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            let value = table[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
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
