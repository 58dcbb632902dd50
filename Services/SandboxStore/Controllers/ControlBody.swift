import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP

/// Bodies of the `/sandbox` controls.
enum ControlBody {
    /// Decodes a JSON body that may be absent altogether (then `empty` is used).
    static func decodeOptional<T: Decodable>(
        _ type: T.Type, from request: Request, limit: Int, empty: T
    ) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw RequestError.bodyTooLarge(limit: limit)
        }
        guard buffer.readableBytes > 0 else { return empty }
        return try JSONBody.decode(type, from: Data(buffer.readableBytesView))
    }
}
