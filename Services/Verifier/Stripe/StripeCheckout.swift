import Crypto
import Foundation
import ShopkeeperCore
import ShopkeeperHTTP
import ShopkeeperModels
import ShopkeeperStores

/// `POST /v1/customers/{app_user_id}/checkout`'s body.
struct CheckoutRequest: Codable, Sendable {
    var productID: String
    /// Where Stripe sends the customer after paying; `{CHECKOUT_SESSION_ID}` is replaced by Stripe.
    var successURL: String
    /// Where Stripe sends the customer who goes back.
    var cancelURL: String

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case successURL = "success_url"
        case cancelURL = "cancel_url"
    }
}

/// The answer: where to send the customer.
struct CheckoutResponse: Codable, Sendable, Equatable {
    var checkoutURL: String
    var sessionID: String

    enum CodingKeys: String, CodingKey {
        case checkoutURL = "checkout_url"
        case sessionID = "session_id"
    }
}

/// Creates Stripe Checkout Sessions for catalog products: the product's Stripe price, `payment` mode for one-time
/// products (making a Stripe customer) and `subscription` mode for auto-renewable ones, the customer as `client_reference_id` and in the
/// metadata of the session and of what it creates (PaymentIntent or subscription), so every later event names them.
struct StripeCheckout: Sendable {
    let client: StripeClient
    let credentials: any CredentialsRepository
    let catalog: StripeCatalog
    var now: @Sendable () -> Date = { Date() }

    /// How long a checkout request without an `Idempotency-Key` counts as the same one (a retry after a lost answer
    /// or a crash gets the same session).
    static let idempotencyWindow: TimeInterval = 300

    func create(
        _ request: CheckoutRequest, appUserID: String, appID: String, clientKey: String?
    ) async throws -> CheckoutResponse {
        guard let stripe = try await credentials.stripe(appID: appID) else {
            throw VerifierError.storeNotConfigured(.stripe)
        }
        try Self.validate(request, livemode: stripe.livemode, clientKey: clientKey)
        guard let price = try await catalog.price(of: request.productID, appID: appID) else {
            throw RequestError.invalid("/product_id", "is not a product of this app sold through Stripe")
        }
        let form = Self.form(request, price: price, appUserID: appUserID, appID: appID)
        let session = try await client.createCheckoutSession(
            form, idempotencyKey: idempotencyKey(request, appUserID: appUserID, appID: appID, clientKey: clientKey),
            key: stripe.secretKey)
        guard let url = session.url else {
            throw VerifierError.storeUnavailable(
                store: StripeClient.storeName, reason: "a Checkout Session without a URL", retryAfterSeconds: 5)
        }
        return CheckoutResponse(checkoutURL: url, sessionID: session.id)
    }

    /// The Checkout Session's parameters.
    static func form(_ request: CheckoutRequest, price: StripeCatalog.Price, appUserID: String, appID: String)
        -> StripeForm
    {
        let metadata: [String: String] = [
            StripeFacts.appIDKey: appID, StripeFacts.appUserIDKey: appUserID,
            StripeFacts.productIDKey: request.productID,
        ]
        let subscription = price.type == .autoRenewable
        var form = StripeForm()
        form.add("mode", subscription ? "subscription" : "payment")
        // A one-time payment makes a Stripe customer too (Stripe's default is a guest), so that the buyer has a
        // customer portal (`StripePortal`) as a subscriber does.
        form.add("customer_creation", subscription ? nil : "always")
        form.add("line_items", .list([.object([("price", .text(price.priceID)), ("quantity", .text("1"))])]))
        form.add("success_url", request.successURL)
        form.add("cancel_url", request.cancelURL)
        // Stripe takes up to 200 characters here; the metadata (500) always names the customer.
        form.add("client_reference_id", appUserID.count <= 200 ? appUserID : nil)
        form.add("metadata", metadata)
        form.add(
            subscription ? "subscription_data" : "payment_intent_data",
            .object([
                ("metadata", .object(metadata.sorted { $0.key < $1.key }.map { ($0.key, .text($0.value)) }))
            ]))
        return form
    }

    /// The same request means the same key: the client's `Idempotency-Key` when it sends one, else the request's
    /// content within ``idempotencyWindow``. Scoped to the app and customer, hashed (Stripe keeps keys for a day).
    func idempotencyKey(_ request: CheckoutRequest, appUserID: String, appID: String, clientKey: String?) -> String {
        let window = Int64((now().timeIntervalSince1970 / Self.idempotencyWindow).rounded(.down))
        let meaning =
            clientKey.map { [appID, appUserID, "client", $0] }
            ?? [appID, appUserID, request.productID, request.successURL, request.cancelURL, String(window)]
        let digest = SHA256.hash(data: Data(meaning.joined(separator: "\u{0}").utf8))
        return "shopkeeper-checkout-" + digest.hexString
    }

    /// Every problem of the request at once: a product id, absolute `https` URLs (`http` too with a test key, for
    /// local shops), and a client key of 1-255 printable characters.
    static func validate(_ request: CheckoutRequest, livemode: Bool, clientKey: String?) throws(RequestError) {
        var problems: [FieldProblem] = []
        if !(1...100).contains(request.productID.count) || request.productID.contains(where: \.isNewline) {
            problems.append(FieldProblem(pointer: "/product_id", detail: "must be 1 to 100 characters on one line"))
        }
        for (pointer, url) in [("/success_url", request.successURL), ("/cancel_url", request.cancelURL)] {
            if let problem = urlProblem(url, livemode: livemode) {
                problems.append(FieldProblem(pointer: pointer, detail: problem))
            }
        }
        if let clientKey,
            !(1...255).contains(clientKey.utf8.count) || !clientKey.utf8.allSatisfy({ (0x21...0x7e).contains($0) })
        {
            problems.append(
                FieldProblem(pointer: "Idempotency-Key", detail: "must be 1 to 255 printable ASCII characters"))
        }
        guard problems.isEmpty else { throw .validationFailed(problems) }
    }

    /// Why `text` is not a URL Stripe may send a customer to (`nil` when it is).
    static func urlProblem(_ text: String, livemode: Bool) -> String? {
        let schemes = livemode ? ["https"] : ["https", "http"]
        let rule = "must be an absolute \(schemes.joined(separator: " or ")) URL of at most 2048 characters"
        // Stripe's placeholder is not a valid URL character sequence until Stripe replaces it.
        let checked = text.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: "cs")
        guard text.utf8.count <= 2048, let components = URLComponents(string: checked),
            let scheme = components.scheme?.lowercased(), schemes.contains(scheme),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return rule }
        return nil
    }
}
