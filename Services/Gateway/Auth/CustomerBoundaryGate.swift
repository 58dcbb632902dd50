import Foundation
import HTTPTypes
import ShopkeeperCustomerTokens
import ShopkeeperHTTP
import ShopkeeperModels

/// The customer boundary at the gateway: a public-key request of a `signed` app that names a customer must carry a
/// customer token for it.
///
/// Requests under ``namingPrefixes`` name a customer: in the path (`/v1/customers/{app_user_id}/...`, decoded once
/// by ``CustomerPath`` and compared here byte for byte), or in the body or query (`POST /v1/purchases`, content
/// manifests and claims, `GET /v1/offerings`). For those the gateway forwards the proved customer in the signed
/// `x-shopkeeper-customer` header and the service compares (``ServiceRequestContext/requireCustomer(_:)``). Secret
/// keys, `open` apps and other paths pass untouched.
struct CustomerBoundaryGate: Sendable {
    /// Path prefixes whose requests name a customer, as segments (`/v1/customers`).
    static let namingPrefixes: [[Substring]] = [
        ["v1", "customers"], ["v1", "purchases"], ["v1", "content"], ["v1", "offerings"],
    ]
    /// The request header of customer tokens.
    static let tokenField = HTTPField.Name(CustomerToken.headerName)!
    /// The gateway's clock (tests move it).
    var now: @Sendable () -> Date = { Date() }

    /// Whether `identity` must prove a customer on `path` (the channel path leaves such requests to the router).
    static func applies(to identity: KeyIdentity, path: Substring) -> Bool {
        identity.kind == .public && identity.boundary == .signed && namesCustomer(path)
    }

    /// Whether `path` lies under one of ``namingPrefixes``. Segments are compared as the routers see them (empty
    /// ones skipped), so `//v1/customers/x` cannot slip past.
    static func namesCustomer(_ path: Substring) -> Bool {
        let segments = path.split(separator: "/")
        return namingPrefixes.contains { segments.starts(with: $0) }
    }

    /// The customer the request proved, to forward; `nil` when the boundary does not apply. `named` is the customer
    /// the path names (``CustomerPath``), already decoded. Throws the refusal.
    func customer(path: Substring, named: String?, headers: HTTPFields, identity: KeyIdentity)
        async throws(CustomerTokenError) -> String?
    {
        guard Self.applies(to: identity, path: path) else { return nil }
        guard let token = headers[Self.tokenField] else { throw .required }
        let subject: String
        do {
            subject = try await CustomerTokenVerifier(keys: identity.tokenKeys).subject(of: token, now: now())
        } catch {
            throw Self.refusal(error)
        }
        // The token's subject in the ids' one form, so the comparison below and the services see the same id.
        guard let proved = try? AppUserID.canonical(subject) else {
            throw .invalid("its subject is not an app user id (\(AppUserID.rule))")
        }
        if let named, !named.utf8.elementsEqual(proved.utf8) { throw .mismatch }
        return proved
    }

    /// The problem a rejected token answers.
    static func refusal(_ rejection: CustomerTokenRejection) -> CustomerTokenError {
        switch rejection {
        case .expired: .expired
        case .malformed: .invalid("not a compact JWS with a subject")
        case .badSignature: .invalid("its signature does not match any of the app's customer token secrets")
        case .missingExpiry: .invalid("it has no 'exp' claim")
        case .lifetimeTooLong: .invalid("it is valid for more than 24 hours")
        case .notYetValid: .invalid("its 'iat' lies in the future")
        case .noSecret: .invalid("the app has no customer token secret or public key")
        }
    }
}
