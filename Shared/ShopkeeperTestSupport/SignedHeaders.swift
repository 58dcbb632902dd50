import Foundation
import HTTPTypes
import ShopkeeperCore
import ShopkeeperModels

extension HTTPFields {
    /// Headers of a call signed like the gateway signs it, acting for `appID` with a `kind` key (and, as for a
    /// `signed` app's public key, for the `customer` a customer token proved).
    package static func signed(
        _ method: HTTPRequest.Method,
        _ pathAndQuery: String,
        appID: String?,
        kind: APIKeyKind = .secret,
        customer: String? = nil,
        body: Data? = nil,
        secret: String = TestEnvironment.internalSecret
    ) -> HTTPFields {
        var fields = HTTPFields()
        let caller = appID.map { InternalCaller(appID: $0, keyKind: kind, customer: customer) }
        for (name, value) in TestEnvironment.signedHeaders(
            method: method.rawValue,
            pathAndQuery: pathAndQuery,
            caller: caller,
            body: body,
            secret: secret
        ) {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        if body != nil { fields[.contentType] = "application/json" }
        return fields
    }
}

/// JSON helpers for test bodies.
package enum TestJSON {
    package static func decode<T: Decodable>(_ type: T.Type, _ buffer: some Sequence<UInt8>) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(buffer))
    }

    package static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// A top-level JSON object as a dictionary.
    package static func object(_ buffer: some Sequence<UInt8>) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(buffer)) as? [String: Any]) ?? [:]
    }
}
