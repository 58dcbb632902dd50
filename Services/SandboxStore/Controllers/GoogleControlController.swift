import Foundation
import Hummingbird
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperStores
import _CryptoExtras

/// `/sandbox/google`: issue service accounts, make Play purchases, complete or cancel pending ones, refund them (with
/// or without the real-time developer notification).
struct GoogleControlController {
    let store: SandboxStore
    /// The public base URL (`SHOPKEEPER_SANDBOX_PUBLIC_URL`); the request's `Host` when unset.
    let publicURL: URL?
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("service-accounts") { request, _ in try await self.createServiceAccount(request) }
        routes.post("purchases") { request, _ in try await self.createPurchase(request) }
        routes.get("purchases/{token}") { _, context in
            let token = context.parameters.get("token") ?? ""
            guard let record = await store.googlePurchase(token: token) else {
                throw ErrorMapping.controlError(.purchaseNotFound(token))
            }
            return try JSONBody.response(GooglePurchaseCreated(record))
        }
        routes.post("purchases/{token}/complete") { _, context in
            let token = context.parameters.get("token") ?? ""
            let (record, events) = try await ErrorMapping.control {
                try await store.completeGoogleNotifying(token: token)
            }
            await dispatcher.send(events.map(StoreEvent.google))
            return try JSONBody.response(GooglePurchaseCreated(record))
        }
        routes.post("purchases/{token}/cancel") { _, context in
            let token = context.parameters.get("token") ?? ""
            let (record, events) = try await ErrorMapping.control { try await store.cancelPendingGoogle(token: token) }
            await dispatcher.send(events.map(StoreEvent.google))
            return try JSONBody.response(GooglePurchaseCreated(record))
        }
        routes.post("purchases/{token}/refund") { request, context in try await self.refund(request, context) }
        return routes
    }

    private func createServiceAccount(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(CreateServiceAccountRequest.self, from: request, limit: maxBodyBytes)
        guard CreateAppleTransactionRequest.isIdentifier(body.packageName) else {
            throw RequestError.invalid("/package_name", "must be a package name such as com.example.app")
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let projectId = "shopkeeper-sandbox-\(StoreIdentifiers.digits(6))"
        let clientEmail = "play-verifier-\(StoreIdentifiers.digits(4))@\(projectId).iam.gserviceaccount.com"
        let tokenUri = baseURL(for: request) + "/google/token"
        let record = GoogleServiceAccountRecord(
            clientEmail: clientEmail, privateKeyId: (0..<20).map { _ in UInt8.random(in: 0...255) }.hexString,
            packageName: body.packageName, publicKey: key.publicKey.pemRepresentation, tokenUri: tokenUri)
        try await store.addServiceAccount(record)
        let encodedEmail = clientEmail.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? clientEmail
        let keyFile = GoogleServiceAccountKey(
            projectId: projectId, privateKeyId: record.privateKeyId,
            privateKey: Self.withFinalNewline(key.pkcs8PEMRepresentation),
            clientEmail: clientEmail, clientId: StoreIdentifiers.digits(21), tokenUri: tokenUri,
            clientX509CertUrl: "https://www.googleapis.com/robot/v1/metadata/x509/\(encodedEmail)")
        return try JSONBody.response(keyFile, status: .created)
    }

    /// Google's key files end the PEM with a newline.
    static func withFinalNewline(_ pem: String) -> String {
        pem.hasSuffix("\n") ? pem : pem + "\n"
    }

    /// The URL clients reach this store at.
    private func baseURL(for request: Request) -> String {
        PublicBaseURL.of(publicURL, request)
    }

    private func createPurchase(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(CreateGooglePurchaseRequest.self, from: request, limit: maxBodyBytes)
        let draft = try body.draft(timeScale: store.timeScale)
        let (record, events) = try await ErrorMapping.control { try await store.purchaseGoogle(draft) }
        await dispatcher.send(events.map(StoreEvent.google))
        return try JSONBody.response(GooglePurchaseCreated(record), status: .created)
    }

    private func refund(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await ControlBody.decodeOptional(
            RefundGooglePurchaseRequest.self, from: request, limit: maxBodyBytes, empty: .init())
        let reason = body.voidedReason ?? 0
        let source = body.voidedSource ?? 0
        guard (0...7).contains(reason) else { throw RequestError.invalid("/voided_reason", "must be 0 to 7") }
        guard (0...2).contains(source) else { throw RequestError.invalid("/voided_source", "must be 0 to 2") }
        let token = context.parameters.get("token") ?? ""
        if let units = body.quantity, units < 1 { throw RequestError.invalid("/quantity", "must be at least 1") }
        let (record, events) = try await ErrorMapping.control {
            if let units = body.quantity {
                return try await store.refundGoogleUnitsNotifying(
                    token: token, units: units, source: source, reason: reason)
            }
            return try await store.refundGoogleNotifying(token: token, source: source, reason: reason)
        }
        if body.notify ?? true {
            await dispatcher.send(events.map(StoreEvent.google))
        }
        return try JSONBody.response(GooglePurchaseCreated(record))
    }
}
