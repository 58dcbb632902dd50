import Crypto
import Foundation
import ShopkeeperModels

/// Header names of Shopkeeper's internal calls (gateway to service, service to service).
///
/// The gateway strips every header starting with `x-shopkeeper-` from public requests before adding its own,
/// so a client can never claim an identity.
package enum InternalHeader {
    /// Prefix shared by all internal headers.
    package static let prefix = "x-shopkeeper-"
    /// The app the call acts for.
    package static let appID = "x-shopkeeper-app-id"
    /// `public` or `secret`: the kind of API key the gateway authenticated.
    package static let keyKind = "x-shopkeeper-key-kind"
    /// The app user id a customer token proved (percent-encoded), on public-key calls of an app whose customer
    /// boundary is `signed`; covered by the signature. A service that reads a customer from the body compares.
    package static let customer = "x-shopkeeper-customer"
    /// Unix time in seconds when the call was signed.
    package static let timestamp = "x-shopkeeper-timestamp"
    /// Lowercase hex SHA-256 of the body, or ``InternalSignature/unsignedPayload`` for a streamed body.
    package static let contentSHA256 = "x-shopkeeper-content-sha256"
    /// Lowercase hex HMAC-SHA256 over the canonical request.
    package static let signature = "x-shopkeeper-signature"
    /// On a service's `GET` response: the gateway may answer the same request from memory for this many
    /// milliseconds (at most one second). Stripped before the response leaves the gateway.
    package static let cacheTTLMilliseconds = "x-shopkeeper-cache-ttl-ms"
    /// On a cacheable `GET` response to a request whose query names a customer (`app_user_id`): `1` when the answer
    /// is the same for every customer (it read nothing of the one named), so the gateway keeps one copy for all of
    /// them. Stripped before the response leaves the gateway.
    package static let cacheCustomerNeutral = "x-shopkeeper-cache-customer-neutral"
    /// On a request: how the gateway can deliver a file itself (``FileHandoff/deliveryValue``); a service may then
    /// answer with a ``FileHandoff`` instead of the bytes.
    package static let fileDelivery = "x-shopkeeper-file-delivery"
}

/// The identity an internal call carries, set by the gateway after it authenticated an API key.
package struct InternalCaller: Sendable, Hashable {
    /// The app every query of the call must be scoped to.
    package var appID: String
    /// The kind of key that authenticated the call.
    package var keyKind: APIKeyKind
    /// The app user id a customer token proved: set only for public keys of apps in `signed` mode, where every
    /// request that names a customer must name this one.
    package var customer: String?

    package init(appID: String, keyKind: APIKeyKind, customer: String? = nil) {
        self.appID = appID
        self.keyKind = keyKind
        self.customer = customer
    }

    /// ``customer`` as it travels in ``InternalHeader/customer``: percent-encoded, so any app user id fits a header.
    package var encodedCustomer: String? {
        customer?.addingPercentEncoding(withAllowedCharacters: Self.unreserved)
    }

    /// The customer of an ``InternalHeader/customer`` value, or `nil` when it does not decode.
    package static func decodeCustomer(_ header: String) -> String? {
        header.removingPercentEncoding
    }

    /// RFC 3986 unreserved characters, kept as they are by ``encodedCustomer``.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// Signs and checks internal calls with a shared secret (HMAC-SHA256).
///
/// The signed message is the method, the path with its query, the timestamp, the identity headers and the body
/// hash, one per line. Public requests the gateway streams through carry ``unsignedPayload`` as body hash;
/// `/internal/` endpoints refuse that and require the real hash.
package struct InternalSignature: Sendable {
    /// Body hash value for a streamed body that was not hashed.
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"

    private let key: SymmetricKey
    /// An HMAC already keyed: copying it skips hashing the key's pads again for every signature.
    private let keyed: HMAC<SHA256>
    /// How far a timestamp may lie from now, either way.
    package let window: Duration

    package init(secret: String, window: Duration = .seconds(60)) {
        self.key = SymmetricKey(data: Data(secret.utf8))
        self.keyed = HMAC<SHA256>(key: key)
        self.window = window
    }

    /// Lowercase hex SHA-256 of `body`.
    package static func bodyHash(_ body: some DataProtocol) -> String {
        SHA256.hash(data: body).hexString
    }

    /// The signature of one request.
    package func sign(
        method: String,
        pathAndQuery: String,
        timestamp: Int64,
        caller: InternalCaller?,
        contentSHA256: String
    ) -> String {
        let message = Self.canonical(
            method: method,
            pathAndQuery: pathAndQuery,
            timestamp: timestamp,
            caller: caller,
            contentSHA256: contentSHA256
        )
        var hmac = keyed
        hmac.update(data: message)
        return hmac.finalize().hexString
    }

    /// The headers to add to an outgoing internal request.
    package func headers(
        method: String,
        pathAndQuery: String,
        caller: InternalCaller?,
        contentSHA256: String,
        now: Date = Date()
    ) -> [(String, String)] {
        let timestamp = Int64(now.timeIntervalSince1970)
        var headers: [(String, String)] = [
            (InternalHeader.timestamp, String(timestamp)),
            (InternalHeader.contentSHA256, contentSHA256),
        ]
        if let caller {
            headers.append((InternalHeader.appID, caller.appID))
            headers.append((InternalHeader.keyKind, caller.keyKind.rawValue))
            if let customer = caller.encodedCustomer { headers.append((InternalHeader.customer, customer)) }
        }
        let signature = sign(
            method: method,
            pathAndQuery: pathAndQuery,
            timestamp: timestamp,
            caller: caller,
            contentSHA256: contentSHA256
        )
        headers.append((InternalHeader.signature, signature))
        return headers
    }

    /// Checks a signature in constant time and the timestamp against the window.
    package func verify(
        method: String,
        pathAndQuery: String,
        timestamp: String?,
        caller: InternalCaller?,
        contentSHA256: String,
        signature: String?,
        now: Date = Date()
    ) throws(InternalSignatureError) {
        guard let signature, let timestamp else { throw .missing }
        guard let seconds = Int64(timestamp) else { throw .malformed }
        let skew = abs(now.timeIntervalSince1970 - Double(seconds))
        guard skew <= Double(window.components.seconds) else { throw .expired }
        guard let given = Data(hexString: signature) else { throw .malformed }
        let message = Self.canonical(
            method: method,
            pathAndQuery: pathAndQuery,
            timestamp: seconds,
            caller: caller,
            contentSHA256: contentSHA256
        )
        guard HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message, using: key) else {
            throw .mismatch
        }
    }

    /// The signed message: method, path with query, timestamp, app id, key kind and body hash, one per line, then the
    /// encoded customer when the caller carries one (calls without one sign exactly what they signed before).
    private static func canonical(
        method: String,
        pathAndQuery: String,
        timestamp: Int64,
        caller: InternalCaller?,
        contentSHA256: String
    ) -> [UInt8] {
        var parts = [
            method.uppercased(), pathAndQuery, String(timestamp), caller?.appID ?? "", caller?.keyKind.rawValue ?? "",
            contentSHA256,
        ]
        if let customer = caller?.encodedCustomer { parts.append(customer) }
        var message: [UInt8] = []
        message.reserveCapacity(parts.reduce(parts.count) { $0 + $1.utf8.count })
        for (index, part) in parts.enumerated() {
            if index > 0 { message.append(UInt8(ascii: "\n")) }
            message.append(contentsOf: part.utf8)
        }
        return message
    }
}

/// Why an internal call was refused.
package enum InternalSignatureError: Error, Equatable, Sendable {
    /// No signature or timestamp header.
    case missing
    /// A header could not be parsed.
    case malformed
    /// The timestamp lies outside the window.
    case expired
    /// The signature does not match the request.
    case mismatch
}
