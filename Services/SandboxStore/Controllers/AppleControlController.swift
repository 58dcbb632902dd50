import Crypto
import Foundation
import Hummingbird
import ShopkeeperHTTP
import ShopkeeperStores

/// `/sandbox/apple`: make App Store purchases (with the StoreKit 2 JWS and the legacy app receipt), refund and revoke
/// them, steer subscription renewals (auto-renew, billing retry, grace period), make a customer's receipt afresh,
/// give a customer their app transaction (StoreKit 2's `AppTransaction`), issue App Store Connect API keys and
/// `verifyReceipt` shared secrets.
struct AppleControlController {
    let store: SandboxStore
    /// The products' prices: a purchase that names none is made at its storefront's.
    let products: SandboxProducts
    let signer: AppleSigner
    let dispatcher: NotificationDispatcher
    let maxBodyBytes: Int

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("transactions") { request, _ in try await self.createTransaction(request) }
        routes.post("transactions/{transactionId}/refund") { request, context in
            try await self.revoke(request, context, kind: "refund")
        }
        routes.post("transactions/{transactionId}/revoke") { request, context in
            try await self.revoke(request, context, kind: "revoke")
        }
        routes.post("subscriptions/{transactionId}/renewal") { request, context in
            try await self.updateRenewal(request, context)
        }
        routes.get("transactions/{transactionId}/receipt") { _, context in
            let id = context.parameters.get("transactionId") ?? ""
            return try JSONBody.response(AppleReceiptData(receiptData: try await receiptData(ofTransaction: id)))
        }
        routes.post("app-transactions") { request, _ in try await self.createAppTransaction(request) }
        routes.post("api-keys") { request, _ in try await self.createAPIKey(request) }
        routes.post("shared-secrets") { request, _ in try await self.createSharedSecret(request) }
        return routes
    }

    private func createTransaction(_ request: Request) async throws -> Response {
        var body = try await JSONBody.decode(CreateAppleTransactionRequest.self, from: request, limit: maxBodyBytes)
        if body.price == nil, body.offerDiscountType != "FREE_TRIAL",
            let listed = await products.price(of: body.productId, storefront: body.storefront ?? "USA"),
            body.currency == nil || body.currency == listed.currency
        {
            body.price = listed.price
            body.currency = body.currency ?? listed.currency
        }
        var draft = try body.draft()
        let offer = try await AppleOfferCheck(store: store).check(body)
        if let offerID = offer.promotionalOfferID {
            draft.offerType = 2
            draft.offerIdentifier = offerID
            draft.offerDiscountType = draft.offerDiscountType ?? "PAY_AS_YOU_GO"
        }
        let (record, events) = try await ErrorMapping.control { try await store.purchaseApple(draft) }
        await dispatcher.send(events.map(StoreEvent.apple))
        return try JSONBody.response(try await created(record), status: .created)
    }

    private func revoke(_ request: Request, _ context: ServiceRequestContext, kind: String) async throws -> Response {
        let body = try await ControlBody.decodeOptional(
            RevokeAppleTransactionRequest.self, from: request, limit: maxBodyBytes, empty: .init())
        let reason = body.reason ?? 0
        guard (0...1).contains(reason) else { throw RequestError.invalid("/reason", "must be 0 or 1") }
        let id = context.parameters.get("transactionId") ?? ""
        let (record, events) = try await ErrorMapping.control {
            try await store.revokeAppleNotifying(id: id, reason: reason, kind: kind)
        }
        await dispatcher.send(events.map(StoreEvent.apple))
        return try JSONBody.response(try await created(record))
    }

    private func updateRenewal(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(UpdateAppleRenewalRequest.self, from: request, limit: maxBodyBytes)
        let id = context.parameters.get("transactionId") ?? ""
        let (latest, events) = try await ErrorMapping.control {
            try await store.updateRenewalNotifying(
                subscription: id, autoRenew: body.autoRenew, billingRetry: body.billingRetry,
                gracePeriodExpires: body.gracePeriodExpiresDate)
        }
        await dispatcher.send(events.map(StoreEvent.apple))
        return try JSONBody.response(
            AppleRenewalState(
                originalTransactionId: latest.originalTransactionId, latestTransactionId: latest.transactionId,
                status: latest.subscriptionStatus(at: Date()).rawValue))
    }

    private func created(_ record: AppleTransactionRecord) async throws -> AppleTransactionCreated {
        AppleTransactionCreated(
            transactionId: record.transactionId, originalTransactionId: record.originalTransactionId,
            orderId: record.orderId, environment: record.environment.rawValue,
            signedTransaction: try signer.transaction(record),
            receiptData: try await receiptData(ofTransaction: record.transactionId))
    }

    /// The customer's app receipt as of now, signed afresh.
    private func receiptData(ofTransaction id: String) async throws -> String {
        let receipt = try await ErrorMapping.control { try await store.appReceipt(forTransaction: id) }
        return try signer.receipt(receipt)
    }

    /// The customer's app transaction: 201 when made now, 200 when they had one (the same id, dates and original
    /// version; signed afresh).
    private func createAppTransaction(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(CreateAppleAppTransactionRequest.self, from: request, limit: maxBodyBytes)
        let draft = try body.draft()
        let (record, created) = try await ErrorMapping.control { try await store.appTransaction(draft) }
        return try JSONBody.response(
            AppleAppTransactionCreated(record, signed: try signer.appTransaction(record)),
            status: created ? .created : .ok)
    }

    private func createSharedSecret(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(CreateSharedSecretRequest.self, from: request, limit: maxBodyBytes)
        guard CreateAppleTransactionRequest.isIdentifier(body.bundleId) else {
            throw RequestError.invalid("/bundle_id", "must be a bundle id such as com.example.app")
        }
        let (secret, created) = try await store.sharedSecret(bundleId: body.bundleId)
        return try JSONBody.response(
            AppleSharedSecret(bundleId: body.bundleId, sharedSecret: secret), status: created ? .created : .ok)
    }

    private func createAPIKey(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(CreateAppleAPIKeyRequest.self, from: request, limit: maxBodyBytes)
        guard CreateAppleTransactionRequest.isIdentifier(body.bundleId) else {
            throw RequestError.invalid("/bundle_id", "must be a bundle id such as com.example.app")
        }
        if let issuer = body.issuerId, !(1...64).contains(issuer.utf8.count) {
            throw RequestError.invalid("/issuer_id", "must be 1 to 64 characters")
        }
        let key = P256.Signing.PrivateKey()
        let record = AppleAPIKeyRecord(
            keyId: StoreIdentifiers.appleKeyID(), issuerId: body.issuerId ?? UUID().uuidString.lowercased(),
            bundleId: body.bundleId, publicKey: key.publicKey.pemRepresentation)
        try await store.addAppleKey(record)
        return try JSONBody.response(
            AppleAPIKeyCreated(
                issuerId: record.issuerId, keyId: record.keyId, bundleId: record.bundleId,
                privateKey: key.pemRepresentation),
            status: .created)
    }
}
