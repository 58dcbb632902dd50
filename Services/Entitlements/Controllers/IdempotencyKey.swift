import HTTPTypes
import Hummingbird
import ShopkeeperHTTP

/// The `Idempotency-Key` header of a request that must happen once.
enum IdempotencyKey {
    /// Longest key accepted.
    static let maximumLength = 255

    /// The key: 1 to 255 printable ASCII characters. Throws 400 `idempotency_key_required` when it is missing and
    /// `bad_header` when it is unusable.
    static func from(_ headers: HTTPFields) throws -> String {
        guard let key = headers[.idempotencyKey] else { throw EntitlementsError.idempotencyKeyRequired }
        guard !key.isEmpty, key.utf8.count <= maximumLength, key.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else {
            throw RequestError.badHeader(
                name: "Idempotency-Key", detail: "must be 1 to \(maximumLength) printable ASCII characters")
        }
        return key
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key`: names one attempt at a request, so a retry of it is not done twice.
    static let idempotencyKey = "idempotency-key".fieldName
    /// `Idempotent-Replayed: true`: this answer was kept from the first request with the same key.
    static let idempotentReplayed = "idempotent-replayed".fieldName
}
