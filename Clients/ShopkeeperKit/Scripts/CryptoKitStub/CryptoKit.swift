// A stand-in for Apple's CryptoKit with the declarations ShopkeeperKit uses, shaped as the SDK declares them, to
// type-check the kit's CryptoKit branch on Linux. Not Apple's code; not shipped.
import Foundation

public struct SHA256: Sendable {
    public init() {}
    public mutating func update<D: DataProtocol>(data: D) {}
    public func finalize() -> SHA256Digest { SHA256Digest() }
}

public struct SHA256Digest: Sequence, Hashable, Sendable {
    public typealias Element = UInt8
    public func makeIterator() -> Array<UInt8>.Iterator { [UInt8](repeating: 0, count: 32).makeIterator() }
}

extension SHA256 {
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { SHA256Digest() }
}

public enum Insecure {
    public struct SHA1: Sendable {
        public static func hash<D: DataProtocol>(data: D) -> SHA1Digest { SHA1Digest() }
    }

    public struct SHA1Digest: Sequence, Hashable, Sendable {
        public typealias Element = UInt8
        public func makeIterator() -> Array<UInt8>.Iterator { [UInt8](repeating: 0, count: 20).makeIterator() }
    }
}

public enum Curve25519 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {}
            public var rawRepresentation: Data { Data() }
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                false
            }
        }
    }
}
