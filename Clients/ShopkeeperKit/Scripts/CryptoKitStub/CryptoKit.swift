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
