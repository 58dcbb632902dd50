/// `GET .../purchases/voidedpurchases`: Google's `VoidedPurchasesListResponse`.
public struct GoogleVoidedPurchasesListResponse: Codable, Sendable, Equatable {
    /// Absent when nothing was voided in the window, as Google does.
    public var voidedPurchases: [GoogleVoidedPurchase]?
    public var pageInfo: GooglePageInfo?
    /// Present when another page follows: send its `nextPageToken` as the `token` query parameter.
    public var tokenPagination: GoogleTokenPagination?

    public init(
        voidedPurchases: [GoogleVoidedPurchase]?, pageInfo: GooglePageInfo? = nil,
        tokenPagination: GoogleTokenPagination? = nil
    ) {
        self.voidedPurchases = voidedPurchases
        self.pageInfo = pageInfo
        self.tokenPagination = tokenPagination
    }
}

/// A refunded, charged-back or revoked purchase (Google's `VoidedPurchase`).
public struct GoogleVoidedPurchase: Codable, Sendable, Equatable {
    /// The `kind` Google sends.
    public static let kindValue = "androidpublisher#voidedPurchase"

    public var kind: String?
    public var purchaseToken: String?
    /// UNIX milliseconds, as a decimal string.
    public var purchaseTimeMillis: String?
    /// UNIX milliseconds, as a decimal string.
    public var voidedTimeMillis: String?
    public var orderId: String?
    /// 0 user, 1 developer, 2 Google.
    public var voidedSource: Int?
    /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud,
    /// 6 friendly fraud, 7 chargeback.
    public var voidedReason: Int?
    /// Set for quantity-based partial refunds only.
    public var voidedQuantity: Int?

    public init(
        kind: String? = kindValue, purchaseToken: String?, purchaseTimeMillis: String?, voidedTimeMillis: String?,
        orderId: String?, voidedSource: Int?, voidedReason: Int?, voidedQuantity: Int? = nil
    ) {
        self.kind = kind
        self.purchaseToken = purchaseToken
        self.purchaseTimeMillis = purchaseTimeMillis
        self.voidedTimeMillis = voidedTimeMillis
        self.orderId = orderId
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.voidedQuantity = voidedQuantity
    }
}

/// Google's `PageInfo`.
public struct GooglePageInfo: Codable, Sendable, Equatable {
    public var totalResults: Int?
    public var resultPerPage: Int?
    public var startIndex: Int?

    public init(totalResults: Int?, resultPerPage: Int?, startIndex: Int?) {
        self.totalResults = totalResults
        self.resultPerPage = resultPerPage
        self.startIndex = startIndex
    }
}

/// Google's `TokenPagination`.
public struct GoogleTokenPagination: Codable, Sendable, Equatable {
    public var nextPageToken: String?
    public var previousPageToken: String?

    public init(nextPageToken: String?, previousPageToken: String? = nil) {
        self.nextPageToken = nextPageToken
        self.previousPageToken = previousPageToken
    }
}
