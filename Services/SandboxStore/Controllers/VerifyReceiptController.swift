import Foundation
import Hummingbird
import NIOCore
import ShopkeeperHTTP
import ShopkeeperStores
import X509

/// Apple's legacy `POST /verifyReceipt` on one Apple host (`/apple/production` or `/apple/sandbox`).
///
/// As Apple: always HTTP 200 with a JSON body whose `status` tells the outcome (unless a fault with an HTTP status
/// is injected). 21002 for an unreadable request or receipt, 21003 for a receipt not signed by this store's chain,
/// 21007/21008 for a receipt of the other environment, 21004 for a wrong shared secret, else 0 with the receipt and
/// the customer's current transactions.
struct VerifyReceiptController {
    let host: AppleHost
    let store: SandboxStore
    let traffic: StoreTraffic
    let reader: AppReceiptReader
    let maxBodyBytes: Int

    init(host: AppleHost, store: SandboxStore, traffic: StoreTraffic, root: Certificate, maxBodyBytes: Int) {
        self.host = host
        self.store = store
        self.traffic = traffic
        self.reader = AppReceiptReader(trustedRoots: [root])
        self.maxBodyBytes = maxBodyBytes
    }

    var endpoints: RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        routes.post("verifyReceipt") { request, _ in
            try await traffic.observe(.apple(host, .verifyReceipt)) { action in
                let answer: VerifyReceiptResponse =
                    if let appleStatus = action?.appleStatus {
                        Self.failure(appleStatus)
                    } else {
                        await verify(request)
                    }
                return try JSONBody.response(answer)
            }
        }
        return routes
    }

    /// A refusal: only the status, and `is-retryable` for Apple's internal errors 21100-21199.
    static func failure(_ code: Int) -> VerifyReceiptResponse {
        VerifyReceiptResponse(
            status: VerifyReceiptStatus(code: code), isRetryable: (21100...21199).contains(code) ? true : nil)
    }

    /// The status Apple answers for a receipt that cannot be read or trusted.
    static func status(for error: AppReceiptError) -> Int {
        switch error {
        case .malformed: VerifyReceiptStatus.malformedReceiptData.code
        case .invalidSignature, .untrustedChain, .missingMarkerExtension, .certificateNotValidAtSigningDate:
            VerifyReceiptStatus.notAuthenticated.code
        }
    }

    private func verify(_ request: Request) async -> VerifyReceiptResponse {
        guard let body = await Self.readBody(request, limit: maxBodyBytes) else {
            return Self.failure(VerifyReceiptStatus.malformedReceiptData.code)
        }
        let receipt: AppReceipt
        do throws(AppReceiptError) {
            receipt = try await reader.read(base64: body.receiptData)
        } catch {
            return Self.failure(Self.status(for: error))
        }
        let isProductionReceipt = receipt.receiptType == "Production"
        switch (host, isProductionReceipt) {
        case (.production, false): return Self.failure(VerifyReceiptStatus.sandboxReceiptSentToProduction.code)
        case (.sandbox, true): return Self.failure(VerifyReceiptStatus.productionReceiptSentToSandbox.code)
        default: break
        }
        if let password = body.password, !password.isEmpty,
            let secret = await store.existingSharedSecret(bundleId: receipt.bundleId), secret != password
        {
            return Self.failure(VerifyReceiptStatus.sharedSecretMismatch.code)
        }
        let now = Date()
        let transactions = await store.currentTransactions(ofReceipt: receipt, environment: host.environment)
        return VerifyReceiptResponse(
            status: .valid, environment: host.environment.rawValue,
            receipt: VerifyReceiptResponse.Receipt(receipt, requestDate: now),
            latestReceiptInfo: Self.latestReceiptInfo(
                transactions, excludeOld: body.excludeOldTransactions == true),
            latestReceipt: body.receiptData,
            pendingRenewalInfo: await pendingRenewalInfo(transactions, at: now))
    }

    /// The request, or `nil` when it is too large, not JSON, or lacks a non-empty `receipt-data`.
    private static func readBody(_ request: Request, limit: Int) async -> VerifyReceiptRequest? {
        guard let buffer = try? await request.body.collect(upTo: limit),
            let body = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(buffer.readableBytesView)),
            !body.receiptData.isEmpty
        else { return nil }
        return body
    }

    /// Newest first (by purchase date, then by creation); with `excludeOld`, only the latest transaction of each
    /// auto-renewable subscription.
    static func latestReceiptInfo(_ transactions: [AppleTransactionRecord], excludeOld: Bool)
        -> [VerifyReceiptResponse.InApp]
    {
        var seen: Set<String> = []
        return transactions.enumerated()
            .sorted { ($0.element.purchaseDate, $0.offset) > ($1.element.purchaseDate, $1.offset) }
            .map(\.element)
            .filter { record in
                guard excludeOld, record.type == .autoRenewable else { return true }
                return seen.insert(record.originalTransactionId).inserted
            }
            .map(\.latestReceiptInfo)
    }

    /// One entry per auto-renewable subscription of the customer, from its latest transaction; `nil` without any.
    private func pendingRenewalInfo(_ transactions: [AppleTransactionRecord], at now: Date) async
        -> [VerifyReceiptResponse.PendingRenewalInfo]?
    {
        var chains: [String] = []
        for record in transactions where record.type == .autoRenewable && !chains.contains(record.originalTransactionId)
        {
            chains.append(record.originalTransactionId)
        }
        var infos: [VerifyReceiptResponse.PendingRenewalInfo] = []
        for chain in chains {
            if let latest = await store.latestTransaction(ofSubscription: chain) {
                infos.append(latest.pendingRenewalInfo(at: now, renewsInto: await store.renewsInto(chain)))
            }
        }
        return infos.isEmpty ? nil : infos
    }
}
