import Foundation
import ShopkeeperModels
import ShopkeeperStores

/// `POST /v1/notifications/stripe`'s checks: which app the event is for, its `Stripe-Signature` against that
/// app's signing secrets (over the body exactly as received), and the event recorded once by its id.
struct StripeWebhook: Sendable {
    let credentials: any CredentialsRepository
    let apps: NotificationApps
    let inbox: any NotificationInbox
    /// How old a signature may be (Stripe's libraries' 300 s).
    var tolerance: TimeInterval = StripeWebhookSignature.defaultTolerance

    /// The fields of the event the webhook is trusted for once its signature holds: its id (what is read back from
    /// Stripe) and what is kept for the record.
    struct EventHeader: Decodable {
        var id: String
        var type: String
        var livemode: Bool
        var object: String
    }

    /// Verifies and records the event, leased for `lease` to the caller when it is new; answers it and whether it
    /// was recorded before.
    func receive(body: Data, signature: String?, requestedApp: String?, lease: Duration, now: Date = Date())
        async throws -> (notification: ReceivedNotification, duplicate: Bool)
    {
        guard let signature else { throw VerifierError.webhookSignatureInvalid("no Stripe-Signature header") }
        let (appID, signedAt) = try await authenticate(
            body: body, signature: signature, requestedApp: requestedApp, now: now)
        guard let event = try? JSONDecoder().decode(EventHeader.self, from: body), event.object == "event",
            event.id.hasPrefix("evt_"), event.id.utf8.count <= 255
        else {
            throw VerifierError.proofRejected(code: "malformed_notification", detail: "The body is not a Stripe event.")
        }
        let notification = ReceivedNotification(
            store: StorePlatform.stripe.rawValue, id: event.id, appID: appID, type: event.type, subtype: nil,
            environment: StripeFacts.environment(livemode: event.livemode).rawValue, signedAt: signedAt,
            payload: String(decoding: body, as: UTF8.self))
        let recorded = try await inbox.recordClaimed(notification, lease: lease)
        return (notification, !recorded)
    }

    /// The app whose signing secrets sign `body`, and when it was signed.
    private func authenticate(body: Data, signature: String, requestedApp: String?, now: Date) async throws
        -> (appID: String, signedAt: Date)
    {
        var reason = StripeSignatureError.noSecret
        for appID in try await apps.stripe(requested: requestedApp) {
            guard let secrets = try await credentials.stripe(appID: appID)?.webhookSecrets else { continue }
            do {
                let signedAt = try StripeWebhookSignature.verify(
                    payload: body, header: signature, secrets: secrets, tolerance: tolerance, now: now)
                return (appID, signedAt)
            } catch {
                // A forged body fails every app alike; an old timestamp is the reason worth telling.
                if reason != .timestampOutsideTolerance { reason = error }
            }
        }
        throw VerifierError.webhookSignatureInvalid(Self.describe(reason))
    }

    static func describe(_ error: StripeSignatureError) -> String {
        switch error {
        case .malformedHeader: "the Stripe-Signature header is malformed"
        case .noSignatures: "the Stripe-Signature header has no v1 signature"
        case .noMatchingSignature: "no v1 signature matches the body under the app's signing secrets"
        case .timestampOutsideTolerance: "the signature is older than the tolerance (300 s)"
        case .noSecret: "no app has Stripe signing secrets for this endpoint"
        }
    }
}
