import Crypto
import Foundation
import ShopkeeperClients
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `POST /v1/customers/{app_user_id}/portal`'s body.
struct PortalRequest: Codable, Sendable {
    /// Where Stripe's portal sends the customer back (its "Return" link).
    var returnURL: String

    enum CodingKeys: String, CodingKey {
        case returnURL = "return_url"
    }
}

/// The answer: where to send the customer (a short-lived link to Stripe's customer portal).
struct PortalResponse: Codable, Sendable, Equatable {
    var portalURL: String

    enum CodingKeys: String, CodingKey {
        case portalURL = "portal_url"
    }
}

/// Opens Stripe's customer portal (subscriptions, payment methods, invoices) for the Stripe customer behind a
/// customer's web purchases. Who owns a purchase is Shopkeeper's record (entitlements: a redemption moves web
/// purchases to the app's customer); which Stripe customer paid for it is Stripe's, read back from the purchase's
/// subscription or PaymentIntent, which must be this app's (its metadata says so) and of the credentials' mode.
struct StripePortal: Sendable {
    let client: StripeClient
    let credentials: any CredentialsRepository
    let entitlements: EntitlementsClient
    var now: @Sendable () -> Date = { Date() }

    /// How many of the customer's Stripe purchases, newest first, are read back looking for a Stripe customer.
    static let purchasesRead = 5

    func create(_ request: PortalRequest, appUserID: String, appID: String, requestID: String?) async throws
        -> PortalResponse
    {
        guard let stripe = try await credentials.stripe(appID: appID) else {
            throw VerifierError.storeNotConfigured(.stripe)
        }
        if let problem = StripeCheckout.urlProblem(request.returnURL, livemode: stripe.livemode) {
            throw RequestError.validationFailed([FieldProblem(pointer: "/return_url", detail: problem)])
        }
        let owned = try await entitlements.storePurchases(
            StorePurchasesRequest(appUserID: appUserID, store: .stripe), appID: appID, requestID: requestID)
        var customer: String?
        for id in owned.originalTransactionIDs.prefix(Self.purchasesRead) where customer == nil {
            customer = try await stripeCustomer(of: id, appID: appID, livemode: stripe.livemode, key: stripe.secretKey)
        }
        guard let customer else { throw VerifierError.noStripeCustomer }
        let session = try await client.createPortalSession(
            customer: customer, returnURL: request.returnURL,
            idempotencyKey: idempotencyKey(customer: customer, returnURL: request.returnURL, appID: appID),
            key: stripe.secretKey)
        return PortalResponse(portalURL: session.url)
    }

    /// The Stripe customer who paid for the purchase `originalTransactionID` (a subscription `sub_...` or a
    /// PaymentIntent `pi_...`), when Stripe has it for this app in this mode; `nil` otherwise.
    func stripeCustomer(of originalTransactionID: String, appID: String, livemode: Bool, key: String)
        async throws -> String?
    {
        do {
            if originalTransactionID.hasPrefix("sub_") {
                let subscription = try await client.subscription(originalTransactionID, key: key)
                guard subscription.livemode == livemode, subscription.metadata?[StripeFacts.appIDKey] == appID
                else { return nil }
                return subscription.customer?.id
            }
            if originalTransactionID.hasPrefix("pi_") {
                let intent = try await client.paymentIntent(originalTransactionID, key: key)
                guard intent.livemode == livemode, intent.metadata?[StripeFacts.appIDKey] == appID else { return nil }
                return intent.customer?.id
            }
        } catch {
            // A purchase Stripe no longer has (a deleted test object) is passed over; anything else is an error.
            if StripeCancellation.isUnknownToStripe(error) { return nil }
            throw error
        }
        return nil
    }

    /// A retry within five minutes is the same call to Stripe (the same session); later, a new session.
    func idempotencyKey(customer: String, returnURL: String, appID: String) -> String {
        let window = Int64((now().timeIntervalSince1970 / StripeCheckout.idempotencyWindow).rounded(.down))
        let digest = SHA256.hash(
            data: Data([appID, customer, "portal", returnURL, String(window)].joined(separator: "\u{0}").utf8))
        return "shopkeeper-portal-" + digest.hexString
    }
}
