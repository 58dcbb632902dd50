import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The typed client of Shopkeeper's public API (`docs/openapi.yaml`), one method per operation an app uses.
/// Retries `429`, `5xx` and broken connections by its ``RetryPolicy`` (waiting `Retry-After`), never another
/// `4xx`; caches the catalog, offerings and customer info by `ETag`; sends the customer token where a customer is named.
/// ``Shopkeeper`` builds the purchase flow on it; use it directly for anything else.
public struct ShopkeeperAPI: Sendable {
    /// The configuration it was made with.
    public let configuration: ShopkeeperConfiguration
    let exchange: HTTPExchange
    let cache = ETagCache()
    /// Checks answers' signatures when the app trusts answer keys.
    let verifier: AnswerVerifier?

    /// A client of the gateway the configuration names.
    public init(configuration: ShopkeeperConfiguration, session: URLSession? = nil) {
        self.configuration = configuration
        self.verifier = AnswerVerifier(configuration: configuration)
        if let session {
            self.exchange = HTTPExchange(session: session)
        } else {
            let settings = URLSessionConfiguration.ephemeral
            settings.timeoutIntervalForRequest = configuration.requestTimeout
            settings.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.exchange = HTTPExchange(session: URLSession(configuration: settings))
        }
    }

    // MARK: Catalog

    /// `GET /v1/catalog`: the shop as this build sees it (cached by `ETag`); with `storefront`, a product without a
    /// price hint of its own carries the price the last catalog sync kept there.
    public func catalog(
        platform: StorePlatform, appVersion: String, build: BuildKind, variant: String? = nil, locale: String? = nil,
        storefront: String? = nil
    ) async throws(ShopkeeperError) -> CatalogView {
        var query = [
            URLQueryItem(name: "platform", value: platform.rawValue),
            URLQueryItem(name: "app_version", value: appVersion),
            URLQueryItem(name: "build", value: build.rawValue),
        ]
        if let variant, !variant.isEmpty { query.append(URLQueryItem(name: "variant", value: variant)) }
        if let locale, !locale.isEmpty { query.append(URLQueryItem(name: "locale", value: locale)) }
        if let storefront, !storefront.isEmpty { query.append(URLQueryItem(name: "storefront", value: storefront)) }
        return try await send(
            APIRequest(method: "GET", path: "/v1/catalog", query: query, cached: true), as: CatalogView.self)
    }

    // MARK: Customers

    /// `GET /v1/customers/{app_user_id}`: what the customer owns now (cached by `ETag`).
    public func customerInfo(appUserID: String) async throws(ShopkeeperError) -> CustomerInfo {
        try await send(
            APIRequest(
                method: "GET", path: "/v1/customers/\(Self.segment(appUserID))", customer: appUserID, cached: true),
            as: CustomerInfo.self)
    }

    /// `POST /v1/purchases`: verify a store's proof and grant what it proves.
    public func submitPurchase(
        _ proof: PurchaseProof, appUserID: String, deviceID: String?, appVersion: String?
    ) async throws(ShopkeeperError) -> PurchaseResponse {
        let body = PurchaseBody(proof: proof, appUserID: appUserID, deviceID: deviceID, appVersion: appVersion)
        return try await send(
            APIRequest(method: "POST", path: "/v1/purchases", customer: appUserID, body: try Self.encode(body)),
            as: PurchaseResponse.self)
    }

    /// `POST /v1/purchases` with `signed_app_transaction`: verify StoreKit's app transaction and grant what it
    /// proves (a paid edition's included products, grandfathered ones; `product_grants` in the answer's customer).
    public func submitAppTransaction(
        _ signedAppTransaction: String, appUserID: String, deviceID: String?, appVersion: String?
    ) async throws(ShopkeeperError) -> PurchaseResponse {
        let body = AppTransactionBody(
            signedAppTransaction: signedAppTransaction, appUserID: appUserID, deviceID: deviceID,
            appVersion: appVersion)
        return try await send(
            APIRequest(method: "POST", path: "/v1/purchases", customer: appUserID, body: try Self.encode(body)),
            as: PurchaseResponse.self)
    }

    /// `POST /v1/customers/{app_user_id}/restore`: verify and grant every proof the device holds, and the app
    /// transaction (presented first; a restore moves it back to this customer by the transfer policy).
    public func restore(
        appUserID: String, proofs: [PurchaseProof], signedAppTransaction: String? = nil, deviceID: String?,
        appVersion: String?
    ) async throws(ShopkeeperError) -> RestoreResponse {
        let body = RestoreBody(
            proofs: proofs, signedAppTransaction: signedAppTransaction, deviceID: deviceID, appVersion: appVersion)
        return try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/restore", customer: appUserID,
                body: try Self.encode(body)),
            as: RestoreResponse.self)
    }

    /// `POST /v1/customers/{app_user_id}/aliases`: make `alias` address this customer too.
    public func linkAlias(appUserID: String, alias: String) async throws(ShopkeeperError) -> CustomerInfo {
        try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/aliases", customer: appUserID,
                body: try Self.encode(["alias": alias])),
            as: CustomerInfo.self)
    }

    /// `POST /v1/customers/{app_user_id}/consumables/{product_id}/consume`, exactly once per `idempotencyKey`.
    public func consume(
        appUserID: String, productID: String, quantity: Int, idempotencyKey: String
    ) async throws(ShopkeeperError) -> ConsumeResult {
        try await send(
            APIRequest(
                method: "POST",
                path: "/v1/customers/\(Self.segment(appUserID))/consumables/\(Self.segment(productID))/consume",
                customer: appUserID, headers: ["Idempotency-Key": idempotencyKey],
                body: try Self.encode(["quantity": quantity])),
            as: ConsumeResult.self)
    }

    /// `POST /v1/customers/{app_user_id}/claims`: own a product the catalog marks free (once per customer).
    public func claimFreeProduct(appUserID: String, productID: String) async throws(ShopkeeperError)
        -> ProductClaimResult
    {
        try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/claims", customer: appUserID,
                body: try Self.encode(["product_id": productID])),
            as: ProductClaimResult.self)
    }

    /// `POST /v1/customers/{app_user_id}/trial`: start the app's free trial on this device (or get the one running).
    public func startTrial(appUserID: String, deviceID: String, productID: String?) async throws(ShopkeeperError)
        -> TrialInfo
    {
        var body = ["device_id": deviceID]
        if let productID { body["product_id"] = productID }
        return try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/trial", customer: appUserID,
                body: try Self.encode(body)),
            as: TrialInfo.self)
    }

    /// `GET /v1/customers/{app_user_id}/trial`.
    public func trial(appUserID: String) async throws(ShopkeeperError) -> TrialInfo {
        try await send(
            APIRequest(method: "GET", path: "/v1/customers/\(Self.segment(appUserID))/trial", customer: appUserID),
            as: TrialInfo.self)
    }

    /// `GET /v1/customers/{app_user_id}/eligibility`: may an intro offer or trial of the product be offered?
    public func eligibility(appUserID: String, productID: String, deviceID: String?) async throws(ShopkeeperError)
        -> EligibilityInfo
    {
        var query = [URLQueryItem(name: "product_id", value: productID)]
        if let deviceID { query.append(URLQueryItem(name: "device_id", value: deviceID)) }
        return try await send(
            APIRequest(
                method: "GET", path: "/v1/customers/\(Self.segment(appUserID))/eligibility", query: query,
                customer: appUserID),
            as: EligibilityInfo.self)
    }

    /// `POST /v1/customers/{app_user_id}/offer-signatures`: an App Store offer signed for the customer, when the server
    /// deems the customer eligible (a promotional offer: `offer_not_eligible` otherwise). `offerID` is required for
    /// ``OfferKind/promotional`` and not allowed for ``OfferKind/introductory``.
    public func offerSignature(
        appUserID: String, productID: String, offer: OfferKind, offerID: String? = nil, deviceID: String? = nil
    ) async throws(ShopkeeperError) -> OfferSignature {
        var body = ["product_id": productID, "offer": offer.rawValue]
        if let offerID { body["offer_id"] = offerID }
        if let deviceID { body["device_id"] = deviceID }
        return try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/offer-signatures",
                customer: appUserID, body: try Self.encode(body)),
            as: OfferSignature.self)
    }

    /// `POST /v1/receipts/validate`: what a saved proof is worth now; records nothing.
    public func validate(_ proof: PurchaseProof) async throws(ShopkeeperError) -> ReceiptValidationResult {
        try await send(
            APIRequest(method: "POST", path: "/v1/receipts/validate", body: try Self.encode(ProofBody(proof: proof))),
            as: ReceiptValidationResult.self)
    }

    // MARK: Content

    /// `GET /v1/content/{product_id}`: the manifest of the product's pack, when the customer is entitled now.
    public func contentManifest(
        productID: String, appUserID: String, deviceID: String, appVersion: String?
    ) async throws(ShopkeeperError) -> ContentManifest {
        var query = [
            URLQueryItem(name: "app_user_id", value: appUserID), URLQueryItem(name: "device_id", value: deviceID),
        ]
        if let appVersion { query.append(URLQueryItem(name: "app_version", value: appVersion)) }
        return try await send(
            APIRequest(
                method: "GET", path: "/v1/content/\(Self.segment(productID))", query: query, customer: appUserID),
            as: ContentManifest.self)
    }

    /// `POST /v1/content/{product_id}/claim`: claim a free product and get its manifest.
    public func claimFreeContent(
        productID: String, appUserID: String, deviceID: String, appVersion: String?
    ) async throws(ShopkeeperError) -> ContentManifest {
        var body = ["app_user_id": appUserID, "device_id": deviceID]
        if let appVersion { body["app_version"] = appVersion }
        return try await send(
            APIRequest(
                method: "POST", path: "/v1/content/\(Self.segment(productID))/claim", customer: appUserID,
                body: try Self.encode(body)),
            as: ContentManifest.self)
    }

    /// `POST /v1/customers/{app_user_id}/content/reset`: forget this device's downloads; fresh manifests.
    public func resetContent(appUserID: String, deviceID: String, appVersion: String?) async throws(ShopkeeperError)
        -> ContentResetResponse
    {
        var body = ["device_id": deviceID]
        if let appVersion { body["app_version"] = appVersion }
        return try await send(
            APIRequest(
                method: "POST", path: "/v1/customers/\(Self.segment(appUserID))/content/reset", customer: appUserID,
                body: try Self.encode(body)),
            as: ContentResetResponse.self)
    }

    /// The absolute URL of a manifest file's (possibly relative) download URL.
    public func downloadURL(of file: ManifestFile) -> URL? {
        URL(string: file.url, relativeTo: configuration.baseURL)?.absoluteURL
    }

    /// Drops the `ETag` cache (after logging out, for instance).
    public func clearCache() async { await cache.removeAll() }

    // MARK: Plumbing

    /// A path segment, percent-encoded (an app user id may hold `/`, `?` or spaces).
    static func segment(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    static func encode(_ value: some Encodable) throws(ShopkeeperError) -> Data {
        do { return try JSONCoding.encoder().encode(value) } catch { throw .decoding("encoding: \(error)") }
    }
}
