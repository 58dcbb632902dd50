import Crypto
import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// Google Play real-time developer notifications through a Cloud Pub/Sub push: authenticated (Google's OIDC token
/// on the push, or the app's secret `?token=`), recorded once per message id, and later processed by fetching the
/// purchase's state from the Play Developer API (a notification is only a signal).
struct GoogleNotifications: Sendable {
    let google: GoogleProofVerifier
    let credentials: any CredentialsRepository
    let transactions: any TransactionRepository
    let apps: NotificationApps
    let inbox: any NotificationInbox
    /// Checks Pub/Sub's OIDC tokens; `nil` when not configured (then only `?token=` authenticates).
    let pushTokens: GooglePushTokenVerifier?

    /// Authenticates and records a push; returns the notification and whether it had been recorded before.
    func receive(
        _ envelope: PubSubPushEnvelope, bearer: String?, token: String?, requestedApp: String?
    ) async throws -> (ReceivedNotification, duplicate: Bool) {
        if token == nil {
            guard let bearer, let pushTokens else { throw VerifierError.pushUnauthenticated }
            do {
                _ = try await pushTokens.verify(bearer)
            } catch {
                throw VerifierError.pushUnauthenticated
            }
        }
        guard let id = envelope.message.id, !id.isEmpty, id.count <= 256, let data = envelope.message.data,
            let bytes = Data(base64Encoded: data),
            let notification = try? JSONDecoder().decode(GoogleDeveloperNotification.self, from: bytes)
        else {
            throw VerifierError.proofRejected(
                code: "malformed_notification", detail: "The push holds no Play developer notification.")
        }
        let appID: String
        do {
            appID = try await apps.google(packageName: notification.packageName, requested: requestedApp)
        } catch let error as VerifierError where token != nil {
            // A caller proving itself with a token learns nothing about which packages exist.
            _ = error
            throw VerifierError.pushUnauthenticated
        }
        guard let credentials = try await credentials.google(appID: appID) else {
            throw token == nil ? VerifierError.storeNotConfigured(.google) : VerifierError.pushUnauthenticated
        }
        if let token {
            guard let expected = credentials.pushToken,
                SHA256.hash(data: Data(token.utf8)) == SHA256.hash(data: Data(expected.utf8))
            else { throw VerifierError.pushUnauthenticated }
        }
        let received = ReceivedNotification(
            store: StorePlatform.playStore.rawValue, id: id, appID: appID, type: notification.kind, subtype: nil,
            environment: nil, signedAt: notification.eventTime,
            payload: String(decoding: bytes, as: UTF8.self))
        let recorded = try await inbox.record(received)
        return (received, !recorded)
    }

    /// The facts a recorded Play notification stands for, fetched from the Play Developer API now.
    func facts(of received: ReceivedNotification) async throws(VerifierError) -> NotificationFacts {
        guard
            let notification = try? JSONDecoder().decode(
                GoogleDeveloperNotification.self, from: Data(received.payload.utf8))
        else { throw .proofRejected(code: "malformed_notification", detail: "Unreadable Play notification.") }
        guard let credentials = try? await credentials.google(appID: received.appID) else {
            throw .storeNotConfigured(.google)
        }
        let observed = notification.eventTime ?? received.signedAt ?? Date()
        if let subscription = notification.subscriptionNotification {
            let revoked =
                subscription.notificationType == GoogleSubscriptionNotificationType.revoked.rawValue ? observed : nil
            return try await subscriptionFacts(
                token: subscription.purchaseToken, productID: subscription.subscriptionId, observed: observed,
                revoked: revoked, credentials: credentials)
        }
        if let oneTime = notification.oneTimeProductNotification {
            // Not queued for consuming: news grants nothing to anyone, and the customer's own presentation queues it.
            let transaction = try await google.verify(
                token: oneTime.purchaseToken, productID: oneTime.sku, kind: .product, credentials: credentials
            ).transaction
            return NotificationFacts(
                facts: [
                    VerifiedFact(transaction: transaction, proofKind: .notification, rawProof: oneTime.purchaseToken)
                ])
        }
        if let voided = notification.voidedPurchaseNotification {
            if voided.productType == 1 {
                return try await subscriptionFacts(
                    token: voided.purchaseToken, productID: nil, observed: observed, revoked: observed,
                    credentials: credentials)
            }
            // A voided one-time purchase: its product comes from the fact recorded for the order.
            let known: [StoreTransaction]
            do {
                known = try await transactions.transactions(
                    appID: received.appID, store: .playStore, ids: [voided.orderId ?? ""])
            } catch {
                // The database did not answer: the notification is worked on again later, never dropped as if it
                // named no purchase (the refund would wait for the voided-purchases poll).
                throw .applyPending(reason: "the voided order's recorded purchase could not be read")
            }
            guard let product = known.first?.storeProductID else { return NotificationFacts() }
            var transaction = try await google.verify(
                token: voided.purchaseToken, productID: product, kind: .product, credentials: credentials
            ).transaction
            // A quantity-based partial refund takes back some units (the fact's running `refundedQuantity`, read
            // from the purchase just now), not the purchase: it is revoked only when Google says so (all refunded).
            let partial = voided.refundType == GoogleRefundType.quantityBasedPartialRefund.rawValue
            if transaction.revocationDate == nil, !partial {
                transaction.revocationDate = observed.wholeSeconds
                transaction.revocationReason = .other
            }
            return NotificationFacts(
                facts: [
                    VerifiedFact(transaction: transaction, proofKind: .notification, rawProof: voided.purchaseToken)
                ])
        }
        return NotificationFacts()
    }

    /// A subscription's latest order and its renewal state, as `purchases.subscriptionsv2` reports them now.
    func subscriptionFacts(
        token: String, productID: String?, observed: Date, revoked: Date?, credentials: GoogleCredentials,
        proofKind: ProofKind = .notification
    ) async throws(VerifierError) -> NotificationFacts {
        let purchase = try await google.client.subscription(token: token, credentials: credentials)
        guard let product = productID ?? purchase.lineItems?.first?.productId else {
            throw .proofRejected(code: "malformed_proof", detail: "Google reported no subscription line item.")
        }
        var transaction = try GoogleTransactionNormalizer.normalize(purchase, productID: product, token: token)
        if let revoked, transaction.revocationDate == nil {
            transaction.revocationDate = revoked.wholeSeconds
            transaction.revocationReason = .other
        }
        let item = purchase.lineItems?.first { $0.productId == product }
        let state = purchase.subscriptionState.flatMap(GoogleSubscriptionState.init(rawValue:))
        var renewal = SubscriptionRenewalFacts(
            store: .playStore, originalTransactionID: transaction.originalTransactionID, observedAt: observed,
            willRenew: item?.autoRenewingPlan?.autoRenewEnabled ?? (state == .active))
        switch state {
        case .active:
            renewal.periodEnded = false
            renewal.isInBillingRetry = false
            renewal.isPaused = false
        case .canceled:
            renewal.willRenew = false
            renewal.expirationReason = "voluntary"
        case .inGracePeriod:
            renewal.isInBillingRetry = true
            renewal.gracePeriodExpiresDate = transaction.expiresDate
            renewal.periodEnded = true
        case .onHold:
            renewal.isInBillingRetry = true
            renewal.periodEnded = true
            renewal.expirationReason = "billing_error"
        case .paused:
            renewal.isPaused = true
            renewal.periodEnded = true
        case .expired:
            renewal.periodEnded = true
            renewal.willRenew = false
        default:
            break
        }
        return NotificationFacts(
            facts: [VerifiedFact(transaction: transaction, proofKind: proofKind, rawProof: token)], renewals: [renewal])
    }
}

extension GoogleDeveloperNotification {
    /// When Google says the event happened.
    var eventTime: Date? {
        eventTimeMillis.flatMap(Int64.init).map(Date.init(appleMilliseconds:))
    }
}
